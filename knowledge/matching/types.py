"""Plain data types shared by the matcher's modules and its callers (no logic here)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FormulationEntry:
    """One formulation of a knowledge item, in one language.

    `vector` is the stored output of `embed_formulations` for this text; when it is None
    (or was made by another model) the matcher computes it at build time.
    """

    id: int
    item_id: int
    text: str
    vector: bytes | None = None


@dataclass(frozen=True)
class MatchingGroupDef:
    """A named set of equivalent words or phrases; members may reference other groups as `{name}`."""

    name: str
    members: list[str]


@dataclass(frozen=True)
class Candidate:
    """One knowledge item proposed for an input, with its best formulation.

    `score` is bounded to 0..1. `formulation_text` is the entry's text as stored;
    `matched_text` is the variant that matched best (group references expanded).
    """

    item_id: int
    score: float
    formulation_id: int
    formulation_text: str
    matched_text: str = ""


@dataclass
class MatchResult:
    """What `Matcher.match` decided for one input.

    outcome: "direct" (candidates[0] is the answer), "reword" (1-3 candidates to offer) or
    "misunderstood" (candidates is empty; `ranked` still lists the nearest items, for logs
    and learning suggestions, never to be shown as an answer).
    """

    outcome: str
    candidates: list[Candidate]
    ranked: list[Candidate] = field(default_factory=list)
    normalised: str = ""
    language: str = ""

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None
