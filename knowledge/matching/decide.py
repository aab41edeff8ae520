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
    "lexical": Thresholds(direct=0.675, reword=0.05, margin=0.0, window=0.3),
    "embeddings": Thresholds(direct=0.55, reword=0.25, margin=0.0, window=0.3),
}


@dataclass(frozen=True)
class Fusion:
    """Weights of the z-scored ranking evidence: the per-bot classifier, the embeddings' top-3 mean, the
    lexical part, and inside the lexical part the TF-IDF item centroid against the top-3 formulations.
    `minilm` is not a fusion weight but the weight of the English MiniLM part of the vectors in the
    classifier's inputs (USE's part weighs 1): MiniLM is the better model, and with few formulations
    per item the classifier generalises better when it leans on it."""

    classifier: float
    knn: float
    lexical: float
    centroid: float
    minilm: float = 1.0


# Per configuration and per regime: "few" when the median item has at most MatcherConfig.few_shot_limit
# formulations, "many" otherwise (with few formulations, item centroids and the classifier generalise
# better than the nearest formulations). Chosen by bench/matching.py --tune on held-out train data.
FUSION = {
    ("embeddings", "many"): Fusion(classifier=1.0, knn=0.5, lexical=0.0, centroid=1.0),
    ("embeddings", "few"): Fusion(classifier=3.0, knn=0.5, lexical=0.15, centroid=2.0, minilm=2.0),
    ("lexical", "many"): Fusion(classifier=0.0, knn=0.0, lexical=1.0, centroid=0.5),
    ("lexical", "few"): Fusion(classifier=0.0, knn=0.0, lexical=1.0, centroid=16.0),
}
CALIBRATION = {
    "lexical": Calibration(share=6.20, similarity=2.84, bias=-4.06),
    "embeddings": Calibration(share=5.82, similarity=6.02, bias=-6.88),
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
