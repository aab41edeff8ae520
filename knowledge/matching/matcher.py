"""The matcher: built once per (bot, language) from formulations and groups, then ranks inputs and decides."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from . import embeddings
from .decide import TUNED, Thresholds, decide
from .groups import GroupExpander
from .lexical import LexicalIndex
from .normalise import normalise
from .types import Candidate, FormulationEntry, MatchingGroupDef, MatchResult

Allowed = None | set[int] | frozenset[int] | Callable[[int], bool]


@dataclass
class MatcherConfig:
    """Settings of one matcher. Thresholds left as None take the tuned defaults of the configuration.

    use_embeddings switches between the default configuration (lexical + sentence embeddings)
    and lexical-only; it defaults to whether the model package is importable (see embeddings.available).
    """

    use_embeddings: bool = field(default_factory=embeddings.available)
    direct_threshold: float | None = None
    reword_threshold: float | None = None
    direct_margin: float | None = None
    reword_window: float | None = None
    spelling: bool = True
    # Only the start of a long input is read (the product reads 600 characters).
    max_input_chars: int = 600
    max_group_variants: int = 256
    # Weight of the embedding cosine against the lexical cosine in a formulation's score.
    embedding_weight: float = 0.7

    @property
    def mode(self) -> str:
        return "embeddings" if self.use_embeddings else "lexical"

    def thresholds(self) -> Thresholds:
        base = TUNED[self.mode]
        return Thresholds(
            direct=base.direct
            if self.direct_threshold is None
            else self.direct_threshold,
            reword=base.reword
            if self.reword_threshold is None
            else self.reword_threshold,
            margin=base.margin if self.direct_margin is None else self.direct_margin,
            window=base.window if self.reword_window is None else self.reword_window,
        )


class Matcher:
    """Read-only after `build`: `match` and `rank` may be called from many threads at once."""

    def __init__(self, language: str, config: MatcherConfig):
        self.language = language
        self.config = config
        self.thresholds = config.thresholds()
        self.entries: list[FormulationEntry] = []
        self.row_entry = np.zeros(0, dtype=np.int32)  # row -> index in entries
        self.row_text: list[str] = []
        self.item_ids = np.zeros(0, dtype=np.int64)  # item index -> item id
        self.item_starts = np.zeros(
            0, dtype=np.int64
        )  # first row of each item (rows grouped by item)
        self.lexical: LexicalIndex | None = None
        self.vectors: np.ndarray | None = None  # entry vectors, float32, L2-normalised
        self.computed_vectors = (
            0  # how many vectors `build` had to compute (the rest came stored)
        )
        self._item_index: dict[int, int] = {}

    # ----------------------------------------------------------------- building
    @classmethod
    def build(
        cls,
        language: str,
        entries: Iterable[FormulationEntry],
        groups: Iterable[MatchingGroupDef] = (),
        config: MatcherConfig | None = None,
    ) -> Matcher:
        """Index `entries` (one language) with `groups`; stored vectors are reused, missing ones computed."""
        config = config or MatcherConfig()
        m = cls(language, config)
        m.entries = sorted(entries, key=lambda e: (e.item_id, e.id))
        expander = GroupExpander(groups, max_variants=config.max_group_variants)
        row_entry: list[int] = []
        row_text: list[str] = []
        item_ids: list[int] = []
        item_starts: list[int] = []
        for i, e in enumerate(m.entries):
            if not item_ids or item_ids[-1] != e.item_id:
                item_ids.append(e.item_id)
                item_starts.append(len(row_text))
            for variant in expander.expand(e.text):
                row_entry.append(i)
                row_text.append(variant)
        m.row_entry = np.asarray(row_entry, dtype=np.int32)
        m.row_text = row_text
        m.item_ids = np.asarray(item_ids, dtype=np.int64)
        m.item_starts = np.asarray(item_starts, dtype=np.int64)
        m._item_index = {int(x): i for i, x in enumerate(item_ids)}
        m.lexical = LexicalIndex(row_text, language, spelling=config.spelling)
        if config.use_embeddings and m.entries:
            m._load_vectors()
        return m

    def _load_vectors(self) -> None:
        vecs = np.zeros((len(self.entries), embeddings.DIM), dtype=np.float32)
        missing: list[int] = []
        for i, e in enumerate(self.entries):
            v = embeddings.from_bytes(e.vector)
            if v is None:
                missing.append(i)
            else:
                vecs[i] = v
        if missing:
            vecs[missing] = embeddings.encode([self.entries[i].text for i in missing])
        self.computed_vectors = len(missing)
        self.vectors = vecs

    @property
    def size(self) -> int:
        """Number of formulations indexed."""
        return len(self.entries)

    # ----------------------------------------------------------------- querying
    def item_scores(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(score per item, score per row), both bounded 0..1."""
        n_rows = len(self.row_text)
        if n_rows == 0:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.float32)
        text = text[: self.config.max_input_chars]
        rows = self.lexical.scores(self.lexical.analyse(text))
        if self.vectors is not None:
            q = embeddings.encode([text])[0]
            emb = np.clip(self.vectors @ q, 0.0, 1.0)[self.row_entry]
            w = self.config.embedding_weight
            rows = (w * emb + (1.0 - w) * rows).astype(np.float32)
        items = np.maximum.reduceat(rows, self.item_starts)
        return items, rows

    def rank(self, text: str, allowed: Allowed = None, k: int = 10) -> list[Candidate]:
        """The `k` best items for `text`, one candidate each, best first, restricted to `allowed`."""
        items, rows = self.item_scores(text)
        if items.size == 0 or k <= 0:
            return []
        accept = _acceptor(allowed)
        order = np.argsort(-items, kind="stable")
        out: list[Candidate] = []
        for idx in order:
            if items[idx] <= 0.0:
                break
            item_id = int(self.item_ids[idx])
            if accept is not None and not accept(item_id):
                continue
            out.append(self._candidate(int(idx), float(items[idx]), rows))
            if len(out) >= k:
                break
        return out

    def _candidate(self, idx: int, score: float, rows: np.ndarray) -> Candidate:
        start = int(self.item_starts[idx])
        end = (
            int(self.item_starts[idx + 1])
            if idx + 1 < len(self.item_starts)
            else len(self.row_text)
        )
        row = start + int(np.argmax(rows[start:end]))
        entry = self.entries[int(self.row_entry[row])]
        return Candidate(
            item_id=entry.item_id,
            score=round(min(1.0, max(0.0, score)), 4),
            formulation_id=entry.id,
            formulation_text=entry.text,
            matched_text=self.row_text[row],
        )

    def match(
        self, text: str, allowed: Allowed = None, max_rewords: int = 3
    ) -> MatchResult:
        """Rank `text` among the allowed items and decide Direct / Reword / Misunderstood."""
        ranked = self.rank(text, allowed=allowed, k=max(3, max_rewords))
        outcome, candidates = decide(ranked, self.thresholds, max_rewords=max_rewords)
        return MatchResult(
            outcome=outcome,
            candidates=candidates,
            ranked=ranked,
            normalised=normalise(text[: self.config.max_input_chars], self.language),
            language=self.language,
        )


def _acceptor(allowed: Allowed) -> Callable[[int], bool] | None:
    if allowed is None:
        return None
    if callable(allowed):
        return allowed
    allowed_set = allowed if isinstance(allowed, (set, frozenset)) else set(allowed)
    return allowed_set.__contains__
