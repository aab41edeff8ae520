"""Direct / Reword / Misunderstood: the decision from ranked candidates, and its thresholds per configuration."""

from __future__ import annotations

from dataclasses import dataclass

from .types import Candidate

DIRECT = "direct"
REWORD = "reword"
MISUNDERSTOOD = "misunderstood"


@dataclass(frozen=True)
class Thresholds:
    """direct: the best score needed to answer at once; margin: how far ahead of the second it must be;
    reword: the lowest score still offered as a "did you mean"; window: rewords stay within this of the best."""

    direct: float
    reword: float
    margin: float
    window: float


@dataclass(frozen=True)
class Calibration:
    """score = sigmoid(share * p + similarity * s + bias): p is the item's share of the evidence among the
    allowed items (softmax of the fused ranking), s its absolute similarity to its best formulations."""

    share: float
    similarity: float
    bias: float


# Set by bench/matching.py (`--tune`) on a held-out part of BANKING77's train split, never on its test split.
# See bench/MATCHING.md for how they were chosen.
TUNED = {
    "lexical": Thresholds(direct=0.65, reword=0.05, margin=0.0, window=0.3),
    "embeddings": Thresholds(direct=0.725, reword=0.55, margin=0.0, window=0.3),
}
CALIBRATION = {
    "lexical": Calibration(share=3.92, similarity=3.49, bias=-4.33),
    "embeddings": Calibration(share=5.52, similarity=3.34, bias=-5.72),
}


def decide(ranked: list[Candidate], t: Thresholds, max_rewords: int = 3) -> tuple[str, list[Candidate]]:
    """(outcome, candidates to act on) for candidates ranked best first, one per item."""
    if not ranked or ranked[0].score < t.reword:
        return MISUNDERSTOOD, []
    best = ranked[0]
    second = ranked[1].score if len(ranked) > 1 else 0.0
    if best.score >= t.direct and best.score - second >= t.margin:
        return DIRECT, list(ranked)
    floor = max(t.reword, best.score - t.window)
    rewords = [c for c in ranked[: max(1, max_rewords)] if c.score >= floor]
    return REWORD, rewords
