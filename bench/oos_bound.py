"""How far out-of-scope rejection can go with what the matcher knows of a question: the best F1 any threshold
gives, the threshold chosen on the test questions themselves (an oracle no bot has), on the matcher's own score
and on every signal it computes combined by a regression fitted on those same questions.

Usage (from the repo root): .venv/bin/python bench/matching.py --oos-bound [--every 8] [--cache DIR].
See bench/MATCHING.md ("How far out-of-scope rejection can go") for the figures.
"""

from __future__ import annotations

import numpy as np

from bench._common import per_item_sample
from bench.matching_decisions import (
    LANGUAGE_SETS,
    DevSet,
    VectorCache,
    build,
    held_out,
    load_banking77,
    load_devset,
)
from knowledge.matching import embeddings as emb
from knowledge.matching.decide import EVIDENCE, MISUNDERSTOOD
from knowledge.matching.scoring import softmax

MAX_MISSED = 0.05  # the ceiling on answerable questions answered "misunderstood"


def signals(m, text: str, vector) -> dict[str, float]:
    """Every per-question signal the matcher has for deciding "out of scope", for its best item."""
    parts = m.components(text, vector, evidence=EVIDENCE)
    everything = np.ones(len(m.item_ids), dtype=bool)
    fused = m.fuse(parts, everything)
    share = softmax(fused, everything)
    best = int(np.argmax(share))
    second, first = np.sort(fused)[-2:] if len(fused) > 1 else (0.0, float(fused.max()))
    terms = m.lexical.analyse(text[: m.config.max_input_chars])
    out = {
        "share": float(share[best]),
        "similarity": float(parts["similarity"][best]),
        "centroid": float(parts["lex_centroid"][best]),
        "centroid_max": float(parts["lex_centroid"].max()),
        "lexical_max": float(parts["lex_top"].max()),
        "fused_max": float(first),
        "fused_gap": float(first - second),
        "unknown_words": terms.unknown / len(terms.words) if terms.words else 0.0,
    }
    for name in ("use_max", "minilm_max", "knn"):
        if name in parts:
            out[name] = float(parts[name].max())
    logits = parts.get("classifier")
    if logits is not None:
        top = float(logits.max())
        out["energy"] = top + float(np.log(np.exp(logits - top).sum()))
        out["max_probability"] = float(softmax(logits, everything).max())
    return out


def collect(m, index, questions, answerable: set[str], cache: VectorCache, language: str):
    """(signals per question, shipped score, shipped outcome is misunderstood, is out of scope)."""
    vectors = [None] * len(questions)
    if m.vectors is not None:
        width = m.vectors.shape[1]
        vectors = [
            emb.from_bytes(v, language)[:width] for v in cache.get([m.model_input(t) for t, _ in questions], language)
        ]
    rows, score, rejected, oos = [], [], [], []
    for (text, item), vector in zip(questions, vectors, strict=True):
        evidence = m.evidence(text, vector=vector)
        result = m.match(text, evidence=evidence)
        rows.append(signals(m, text, vector))
        score.append(result.ranked[0].score if result.ranked else 0.0)
        rejected.append(result.outcome == MISUNDERSTOOD)
        oos.append(item not in answerable)
    return rows, np.array(score), np.array(rejected), np.array(oos)


def f1(rejected: np.ndarray, oos: np.ndarray) -> tuple[float, float]:
    """(out-of-scope F1 of "misunderstood" as the detector, share of answerable questions misunderstood)."""
    tp, fp = int((rejected & oos).sum()), int((rejected & ~oos).sum())
    missed = fp / max(int((~oos).sum()), 1)
    if not tp:
        return 0.0, missed
    precision, recall = tp / (tp + fp), tp / int(oos.sum())
    return 2 * precision * recall / (precision + recall), missed


def best_threshold(score: np.ndarray, oos: np.ndarray, max_missed: float = 1.0) -> tuple[float, float]:
    """The best (F1, missed) of "misunderstood below t" over every t, with at most `max_missed` answerable
    questions misunderstood."""
    best = (0.0, 0.0)
    for t in np.unique(score):
        f, missed = f1(score <= t, oos)
        if missed <= max_missed and f > best[0]:
            best = (f, missed)
    return best


def regression_score(rows: list[dict[str, float]], oos: np.ndarray) -> np.ndarray:
    """ "In scope" log-odds from a logistic regression of the questions' own labels on every signal
    (standardised, a light L2), by Newton steps: the best such a combination could ever be on them."""
    names = sorted(rows[0])
    x = np.array([[r[n] for n in names] for r in rows])
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-9)
    X = np.column_stack([x, np.ones(len(x))])
    y = (~oos).astype(float)
    theta = np.zeros(X.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(X @ theta)))
        grad = X.T @ (p - y) + 1e-2 * theta
        hess = (X * (p * (1 - p))[:, None]).T @ X + 1e-2 * np.eye(len(theta))
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return X @ theta


def bound(label: str, m, index, devset: DevSet, answerable: set[str], cache: VectorCache) -> dict[str, float]:
    rows, score, rejected, oos = collect(m, index, devset.questions, answerable, cache, devset.language)
    shipped, shipped_missed = f1(rejected, oos)
    combined = regression_score(rows, oos)
    out = {
        "shipped": shipped,
        "shipped_missed": shipped_missed,
        "score_any": best_threshold(score, oos),
        "score_capped": best_threshold(score, oos, MAX_MISSED),
        "all_any": best_threshold(combined, oos),
        "all_capped": best_threshold(combined, oos, MAX_MISSED),
    }
    print(
        f"  {label:<34} shipped F1 {shipped:.2f} (misunderstood {shipped_missed:.1%}) | best threshold on the score: "
        f"F1 {out['score_any'][0]:.2f} (misunderstood {out['score_any'][1]:.1%}), with misunderstood <= "
        f"{MAX_MISSED:.0%}: {out['score_capped'][0]:.2f} | every signal ({len(rows[0])}) fitted on these questions: "
        f"F1 {out['all_any'][0]:.2f} (misunderstood {out['all_any'][1]:.1%}), with misunderstood <= "
        f"{MAX_MISSED:.0%}: {out['all_capped'][0]:.2f} | {int(oos.sum())} out of scope, {int((~oos).sum())} answerable",
        flush=True,
    )
    return out


def run(banking77, configs, every: int = 8, cache_dir=None, fr_nl_seeds=(0, 1, 2)) -> dict:
    """Each set and configuration, full knowledge base (written out-of-scope questions) and held-out intents."""
    cache = VectorCache(cache_dir)
    sets = [load_devset(name) for name in LANGUAGE_SETS]
    b77 = load_banking77(banking77, every)
    results = {}
    for cname in configs:
        use = cname == "default"
        print(f"\n== how far out-of-scope rejection can go, {cname} configuration (shipped: calibrated)")
        for d in sets:
            if any(item is None for _, item in d.questions):  # written out-of-scope questions to bound
                m, index, _, _ = build(d, d.kb, use, True, cache)
                results[(cname, d.name, "full")] = bound(f"{d.name} full", m, index, d, {c for _, c in d.kb}, cache)
            for seed in fr_nl_seeds:
                kb, _ = held_out(d, d.kb, seed)
                m, index, _, _ = build(d, kb, use, True, cache)
                label = f"{d.name} held-out seed {seed}"
                results[(cname, d.name, f"held-out {seed}")] = bound(label, m, index, d, {c for _, c in kb}, cache)
        for vname, kb in (("full", b77.kb), ("5 per item", per_item_sample(b77.kb, 5, 0))):
            reduced, _ = held_out(b77, kb, 0)
            m, index, _, _ = build(b77, reduced, use, True, cache)
            label = f"banking77 {vname} held-out seed 0"
            results[(cname, "banking77", f"{vname} held-out 0")] = bound(
                label, m, index, b77, {c for _, c in reduced}, cache
            )
    return results
