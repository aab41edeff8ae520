"""Direct / Reword / Misunderstood: the decision from ranked candidates, and its thresholds per configuration."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .polarity import AGREES, CONTRADICTS, SILENT
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
    """score = sigmoid(share * p + similarity * s + centroid * c + bias): p is the item's share of the evidence
    among the allowed items (softmax of the fused ranking), s its absolute similarity to its best formulations,
    c its lexical cosine to the item's TF-IDF centroid (weighed by the per-bot calibration only: it tells
    out-of-scope questions apart better than the rest in lexical-only mode)."""

    share: float
    similarity: float
    bias: float
    centroid: float = 0.0


# Set by bench/matching.py (`--tune`) on a held-out part of BANKING77's train split, never on its test split.
# See bench/MATCHING.md for how they were chosen.
TUNED = {
    "lexical": Thresholds(direct=0.675, reword=0.05, margin=0.0, window=0.3),
    "embeddings": Thresholds(direct=0.6, reword=0.225, margin=0.0, window=0.3),
}


# The ranking evidence an item gets for an input, each z-scored over the bot's items before it is weighed:
# - classifier: logits of the per-bot softmax regression; lda: logits of the closed-form shrinkage LDA;
# - knn: mean cosine of the item's 3 best formulations over the whole vector (every model part);
# - use_top / use_max, minilm_top / minilm_max: the same per model part (top-3 mean, best formulation);
# - lex_top: lexical TF-IDF top-3 mean; lex_centroid: lexical cosine to the item's TF-IDF centroid.
EVIDENCE = ("classifier", "lda", "knn", "use_top", "use_max", "minilm_top", "minilm_max", "lex_top", "lex_centroid")


@dataclass(frozen=True)
class Fusion:
    """Weights of the z-scored ranking evidence (names in EVIDENCE; missing ones weigh 0), and `minilm`, which
    is not a fusion weight but the weight of the English MiniLM part of the vectors in the classifier's
    inputs (USE's part weighs 1): MiniLM is the better model, and with few formulations per item the
    classifier generalises better when it leans on it."""

    weights: dict[str, float]
    minilm: float = 1.0

    def __post_init__(self):
        unknown = set(self.weights) - set(EVIDENCE)
        if unknown:
            raise ValueError(f"unknown evidence: {sorted(unknown)}")

    def weight(self, name: str) -> float:
        return self.weights.get(name, 0.0)


# Per configuration, regime and vector layout. Regime: "few" when the median item has at most
# MatcherConfig.few_shot_limit formulations, "many" otherwise (with few formulations, the classifiers and the
# best single formulation per model generalise better than the nearest formulations). Layout: which models
# make the vectors ("use": French, Dutch...; "use+minilm": English; "lexical": no model).
# Chosen by bench/matching.py --tune on held-out train data, per layout: "many" by a grid search, "few" by a
# listwise softmax regression of the right item on the evidence (see bench/MATCHING.md).
_LEXICAL_MANY = Fusion({"lex_top": 1 / 1.5, "lex_centroid": 0.5 / 1.5})
_LEXICAL_FEW = Fusion({"lex_top": 1 / 17, "lex_centroid": 16 / 17})
FUSION = {
    ("lexical", "many", "lexical"): _LEXICAL_MANY,
    ("lexical", "few", "lexical"): _LEXICAL_FEW,
    ("embeddings", "many", "use"): Fusion({"classifier": 1.0, "knn": 0.5, "lex_top": 0.075, "lex_centroid": 0.075}),
    ("embeddings", "many", "use+minilm"): Fusion({"classifier": 1.0, "knn": 0.5}),
    ("embeddings", "few", "use"): Fusion(
        {"classifier": 1.14, "lda": 1.13, "use_top": -0.35, "use_max": 0.52, "lex_top": 0.42, "lex_centroid": -0.08}
    ),
    ("embeddings", "few", "use+minilm"): Fusion(
        {
            "classifier": 1.63,
            "lda": 0.8,
            "use_top": -0.39,
            "use_max": 0.31,
            "minilm_top": 0.17,
            "minilm_max": 0.64,
            "lex_top": 0.39,
            "lex_centroid": -0.25,
        },
        minilm=2.0,
    ),
}
CALIBRATION = {
    "lexical": Calibration(share=6.20, similarity=2.84, bias=-4.06),
    "embeddings": Calibration(share=6.51, similarity=4.44, bias=-6.14),
}


# What each outcome costs the visitor, counted against a right direct answer (cost 0), in "clicks":
# - a reword whose offers hold the right item: one click more (0.5, the unit below);
# - a wrong direct answer: the visitor may leave with wrong information, or must notice it, rephrase and
#   hope; the worst outcome, 4 times a good reword (2.0);
# - misunderstood when the bot could answer: he must rephrase unaided, with nothing to pick from; more than
#   a reword, as bad as a wrong answer (2.0) in the default configuration, 1.5 lexical-only (where a
#   lexical score misses more answerable questions by nature, so each rejection says less);
# - a reword none of whose offers is right (or a question out of the bot's scope): a click read for
#   nothing, then the visitor rephrases (1.25: between a good reword and a miss);
# - out of scope and said so (misunderstood): 0, the right outcome.
# The per-bot calibration (calibration.py) minimises these costs over a bot's own held-out formulations to
# place its Direct / Reword thresholds (a missed probe counting calibration.MISSED_PROBE: held-out formulations
# are harder than visitors' questions); decide() adds the part no threshold on the best score
# can see: how the evidence is shared among the best candidates. Ratios chosen by reasoning about the
# visitor (above), not fitted; their effect is measured in bench/MATCHING.md ("A decision rule with the
# visitor's costs").
@dataclass(frozen=True)
class Costs:
    wrong_direct: float = 2.0
    reword: float = 0.5
    useless_reword: float = 1.25
    missed: float = 2.0


COSTS = {"embeddings": Costs(), "lexical": Costs(missed=1.5)}


def direct_pays(scores, costs: Costs = COSTS["embeddings"]):
    """Whether answering the best candidate at once costs the visitor less, in expectation, than offering
    the candidates as a reword. `scores`: the calibrated scores of the best candidates (best first; an
    array of shape (..., k) works too). Each score is a probability that this candidate is right; since one
    item at most is right, when they add up to more than 1 they are shared: P(best right) = p1 / max(1, sum).
    The reword is right when any offer is (P = min(1, sum)), else useless."""
    p = np.asarray(scores, dtype=float)
    total = p.sum(axis=-1)
    best = p[..., 0] / np.maximum(1.0, total)
    offered = np.minimum(1.0, total)
    direct = costs.wrong_direct * (1.0 - best)
    reword = costs.reword * offered + costs.useless_reword * (1.0 - offered)
    return direct <= reword


def decide(
    ranked: list[Candidate],
    t: Thresholds,
    max_rewords: int = 3,
    *,
    costs: Costs = COSTS["embeddings"],
    topic: frozenset[int] | set[int] | None = None,
    written: bool = False,
    stances: dict[int, int] | None = None,
    unrelated: bool = False,
) -> tuple[str, list[Candidate]]:
    """(outcome, candidates to act on) for candidates ranked best first, one per item.

    Direct when the best score reaches the direct threshold and answering costs the visitor less than a
    reword (direct_pays: a second candidate nearly as likely makes it a reword); Reword when the best score
    reaches the reword threshold; else Misunderstood. `topic`: the items sharing a vague input's one
    informative word (topic.py): such an input names a subject, not a question, so it is never answered
    directly and, whatever its scores, offers the best of those items. `stances`: item id -> how each ranked item
    stands to the actions the input asks for (polarity.py); a best item that does the opposite is not
    answered directly when a ranked twin says the asked action: the twins are offered before it. `unrelated`:
    the input names no subject and shares no word with the best item (topic.says_nothing_of): Misunderstood."""
    if unrelated:
        return MISUNDERSTOOD, []
    if topic:
        shared = [c for c in ranked if c.item_id in topic][: max(1, max_rewords)]
        if shared:
            return REWORD, shared
    if not ranked or ranked[0].score < t.reword:
        return MISUNDERSTOOD, []
    best = ranked[0]
    stances = stances or {}
    agreeing = [c for c in ranked if stances.get(c.item_id) == AGREES]
    if agreeing and stances.get(best.item_id) == CONTRADICTS:
        # "Werkbank licht uit" whose best item only ever switches the light on: its twin that switches it off,
        # ranked lower because the encoder reads both the same, is offered first, whatever its score. Without
        # such a twin the best may be the same subject ("close today?" for the opening hours): decided as usual.
        others = [c for c in ranked[1:] if c.score >= t.reword and stances.get(c.item_id) == SILENT]
        return REWORD, [*agreeing, best, *others][: max(1, max_rewords)]
    second = ranked[1].score if len(ranked) > 1 else 0.0
    confident = best.score >= t.direct and best.score - second >= t.margin
    # `written`: the input is, word for word, a formulation of the best item and of no other: the bot's author
    # wrote it for that item, whatever the rivals' scores (the lexical scores of rivals sharing some of its words
    # were taken for doubt: « Quels documents pour ouvrir un compte ? » was offered beside « Comment ouvrir un
    # compte ? » instead of answered).
    if confident and (written or direct_pays([c.score for c in ranked[:3]], costs)):
        return DIRECT, list(ranked)
    # Not answered for the rivals that share the evidence (two items written with the same words): they are
    # offered beside it, whatever the window; a reword of the best alone would be the direct answer refused.
    floor = t.reword if confident else max(t.reword, best.score - t.window)
    rewords = [c for c in ranked[: max(1, max_rewords)] if c.score >= floor]
    return REWORD, rewords
