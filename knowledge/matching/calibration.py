"""Per-bot calibration: the score calibration and the Direct / Reword thresholds fitted, at index build, on the
bot's own formulations (held-out formulations as in-scope questions, the same with their item removed as
out-of-scope ones), blended with the priors of decide.py for bots too small to say much."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .decide import COSTS, Calibration, Costs, Thresholds, direct_pays
from .scoring import softmax

if TYPE_CHECKING:
    from .matcher import Matcher

# At most this many held-out formulations (one per item in turn): enough to place two thresholds, cheap
# enough (one evidence computation each, the vectors are stored) to run at every build.
MAX_PROBES = 240
# Rounds of held-out formulations (one per item and round), each against an index without them: another
# round only while the probes number fewer than ENOUGH_PROBES (each round is one more index to build).
MAX_ROUNDS = 3
ENOUGH_PROBES = 60
# Below this many probes the bot is not calibrated at all (the priors serve as they are).
MIN_PROBES = 4
# Weight of the priors, in probes: with PRIOR_PROBES probes the fitted thresholds weigh half.
PRIOR_PROBES = 40.0
# Strength of the pull of the fitted calibration towards the prior one (an L2 penalty on the difference).
PRIOR_STRENGTH = 8.0
# An out-of-scope probe weighs this much against an in-scope one, per configuration: a bot mostly gets
# questions it can answer, and a probe whose item is removed is nearer the bot's field than most questions
# out of its scope (its sibling items remain).
OOS_WEIGHT = {"embeddings": 0.25, "lexical": 0.5}
# The thresholds are placed where the probes cost the visitor least (decide.COSTS, where the costs and their
# reasons are), but for one: an in-scope probe missed. A bot's held-out formulations are harder than its
# visitors' questions (their right item ranks first half as often on the French and Dutch sets), so a probe
# missed stands for a question that would more often have been answered: it costs this much, per configuration
# (MatcherConfig.mode), more than decide.COSTS' `missed`. Chosen leave-one-corpus-out (bench/matching.py --loo,
# bench/MATCHING.md "Leave one corpus out"): 2.5 has the least cost to the visitor over the six corpora and, chosen
# on five, costs the sixth no more than 2.0 did but on one (nl_gemeente, +0.005 a question). Lexical-only bots
# keep the priors (MatcherConfig.calibrates).
MISSED_PROBE = {"embeddings": 2.5, "lexical": COSTS["lexical"].missed}
RIGHT_DIRECT, REJECTED = 0.0, 0.0
DIRECT_GRID = np.round(np.arange(0.30, 0.96, 0.025), 3)
REWORD_GRID = np.round(np.arange(0.025, 0.90, 0.025), 3)


@dataclass(frozen=True)
class Fitted:
    """What a calibration run gives a matcher: its calibration and thresholds, and how much it rests on."""

    calibration: Calibration
    thresholds: Thresholds
    probes: int
    weight: float  # share of the fitted values against the priors, 0..1


def rounds_of(m: Matcher, limit: int = MAX_PROBES, max_rounds: int = MAX_ROUNDS, seed: int = 0) -> list[list[int]]:
    """Indexes (in m.entries) of the formulations held out, per round: at most one per item in a round (so
    that each item keeps nearly all its formulations, as the bot has them), only from items that keep two
    at least, rounds until ENOUGH_PROBES probes (`limit` at most) or `max_rounds`."""
    by_item: dict[int, list[int]] = {}
    for i, e in enumerate(m.entries):
        by_item.setdefault(e.item_id, []).append(i)
    rng = random.Random(seed)
    pools = []
    for item in sorted(by_item):
        rows = list(by_item[item])
        if len(rows) >= 3:
            rng.shuffle(rows)
            pools.append(rows)
    rng.shuffle(pools)
    rounds: list[list[int]] = []
    total = 0
    for depth in range(max_rounds):
        held = [pool[depth] for pool in pools if depth < len(pool) - 2][: limit - total]
        if not held:
            break
        rounds.append(held)
        total += len(held)
        if total >= min(limit, ENOUGH_PROBES):
            break
    return rounds


def fit(m: Matcher, groups=(), limit: int = MAX_PROBES) -> Fitted | None:
    """Calibrate `m` (built, classifier final) from held-out formulations; None when it has too few."""
    probes = probe(m, groups, limit)
    if probes is None:
        return None
    ins, ins_right, oos = probes
    return fit_probes(m, ins, ins_right, oos)


def probe(m: Matcher, groups=(), limit: int = MAX_PROBES):
    """(ins, ins_right, oos) for the held-out formulations of `m`, or None when it has too few: `ins` the
    (share, similarity, centroid) of each probe's three best candidates in scope, `ins_right` which of them is
    the right item, `oos` the same for its best candidate once its item is removed."""
    rounds = rounds_of(m, limit)
    if sum(map(len, rounds)) < MIN_PROBES:
        return None
    found = [_probe_round(m, held, groups) for held in rounds]
    return tuple(np.concatenate([f[k] for f in found]) for k in range(3))


def _probe_round(m: Matcher, held: list[int], groups):
    from .matcher import Matcher  # the matcher imports this module

    keep = np.ones(len(m.entries), dtype=bool)
    keep[held] = False
    rest = [e for e, kept in zip(m.entries, keep, strict=True) if kept]
    # The matcher keeps its vectors decoded, not in its entries: the shadow gets those rows of them (one copy,
    # not each vector encoded to stored bytes and decoded again: a big bot's build peaked there).
    vectors = m.vectors[keep] if m.vectors is not None else None
    # The shadow index is the bot without these probes, weighed as the bot is (same regime, fusion and
    # classifier kind), its regression trained here (this runs where the bot's own one was trained).
    shadow_config = replace(
        m.config,
        calibrate=False,
        fusion_weights=dict(m.fusion.weights),
        minilm_weight=m.fusion.minilm,
        sync_training_cost=float("inf"),
    )
    shadow = Matcher.build(m.language, rest, groups, shadow_config, vectors=vectors)
    del rest, vectors
    first_row = np.searchsorted(m.row_entry, np.arange(len(m.entries)))
    n = len(held)
    # Per probe: its three best candidates in scope (share, similarity; padding has similarity 0, never
    # proposed), whether each is the right item, and its best candidate once its item is removed.
    ins = np.zeros((n, 3, 3))
    ins_right = np.zeros((n, 3), dtype=bool)
    oos = np.zeros((n, 3))
    all_items = np.ones(len(shadow.item_ids), dtype=bool)
    for k, i in enumerate(held):
        text = m.row_text[int(first_row[i])]  # the formulation with its group references expanded
        vector = m.vectors[i] if m.vectors is not None else None
        parts = shadow.components(text, vector)
        similarity, centroid = parts["similarity"], parts["lex_centroid"]
        gold = int(np.searchsorted(shadow.item_ids, m.entries[i].item_id))
        share = softmax(shadow.fuse(parts, all_items), all_items)
        for slot, j in enumerate(np.argsort(-share)[:3]):
            ins[k, slot] = (share[j], similarity[j], centroid[j])
            ins_right[k, slot] = j == gold
        # Out of scope: the same question to the bot without its item (the evidence weighed among the others).
        others = all_items.copy()
        others[gold] = False
        if others.any():
            alone = softmax(shadow.fuse(parts, others), others)
            j = int(np.argmax(alone))
            oos[k] = (alone[j], similarity[j], centroid[j])
    return ins, ins_right, oos


def fit_probes(m: Matcher, ins: np.ndarray, ins_right: np.ndarray, oos: np.ndarray) -> Fitted:
    n = len(ins)
    x = np.concatenate([ins.reshape(-1, 3), oos])
    y = np.concatenate([ins_right.reshape(-1).astype(float), np.zeros(n)])
    oos_weight = OOS_WEIGHT[m.config.mode]
    weights = np.concatenate([np.ones(3 * n), np.full(n, oos_weight)])
    weights[x[:, 1] <= 0.0] = 0.0  # padding and unrelated candidates: never proposed, nothing to fit
    calibration = _logistic(x, y, weights, m.calibration)
    direct, reword = _thresholds(
        _scores(ins.reshape(-1, 3), calibration).reshape(n, 3),
        ins_right,
        _scores(oos, calibration),
        m.thresholds,
        replace(COSTS[m.config.mode], missed=MISSED_PROBE[m.config.mode]),
        oos_weight,
    )
    w = n / (n + PRIOR_PROBES)
    prior = m.thresholds
    thresholds = replace(
        prior,
        direct=round(w * direct + (1 - w) * prior.direct, 4),
        reword=round(w * reword + (1 - w) * prior.reword, 4),
    )
    return Fitted(calibration=calibration, thresholds=thresholds, probes=n, weight=round(w, 3))


def _scores(feats: np.ndarray, c: Calibration) -> np.ndarray:
    z = c.share * feats[:, 0] + c.similarity * feats[:, 1] + c.centroid * feats[:, 2] + c.bias
    s = 1.0 / (1.0 + np.exp(-z))
    s[feats[:, 1] <= 0.0] = 0.0  # as the matcher does: nothing in common, never proposed
    return s


def _logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, prior: Calibration) -> Calibration:
    """Weighted logistic regression of "this candidate is right" on (share, similarity, centroid cosine),
    pulled towards the prior calibration (an L2 penalty on the difference), by Newton steps (four parameters)."""
    theta0 = np.array([prior.share, prior.similarity, prior.centroid, prior.bias])
    theta = theta0.copy()
    X = np.column_stack([x, np.ones(len(x))])
    for _ in range(30):
        p = 1.0 / (1.0 + np.exp(-(X @ theta)))
        grad = X.T @ (w * (p - y)) + PRIOR_STRENGTH * (theta - theta0)
        hess = (X * (w * p * (1 - p))[:, None]).T @ X + PRIOR_STRENGTH * np.eye(4)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-6:
            break
    share, similarity, centroid, bias = (round(float(v), 4) for v in theta)
    return Calibration(share=share, similarity=similarity, bias=bias, centroid=centroid)


def _thresholds(
    ins: np.ndarray, ins_right: np.ndarray, oos: np.ndarray, prior: Thresholds, costs: Costs, oos_weight: float
) -> tuple[float, float]:
    """(direct, reword) with the least total cost to the visitor over the probes (decide.COSTS), deciding as
    decide.decide does: `ins` the scores of each probe's three candidates in scope (`ins_right`: which is the
    right item), `oos` its best score once its item is gone."""
    top, top_right = ins[:, 0], ins_right[:, 0]
    pays = direct_pays(ins, costs)  # a probe whose best candidate is not far enough ahead is never direct
    # Out of scope, only the best candidate is known: alone, it pays as a direct answer from the same score.
    oos_pays = direct_pays(np.column_stack([oos, np.zeros((len(oos), 2))]), costs)
    right, wrong = RIGHT_DIRECT, -costs.wrong_direct
    good, useless, missed = -costs.reword, -costs.useless_reword, -costs.missed
    best = (-np.inf, prior.direct, prior.reword)
    for direct in DIRECT_GRID:
        for reword in REWORD_GRID[: np.searchsorted(REWORD_GRID, direct)]:
            floor = np.maximum(reword, top - prior.window)
            offered = ((ins >= floor[:, None]) & ins_right).any(axis=1)
            u_in = np.where(
                (top >= direct) & pays,
                np.where(top_right, right, wrong),
                np.where(top >= reword, np.where(offered, good, useless), missed),
            ).sum()
            u_out = np.where((oos >= direct) & oos_pays, wrong, np.where(oos >= reword, useless, REJECTED)).sum()
            u = float(u_in + oos_weight * u_out)
            if u > best[0] + 1e-9:
                best = (u, float(direct), float(reword))
    return best[1], best[2]
