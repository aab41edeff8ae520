"""Benchmark of knowledge/matching on BANKING77: accuracy, outcomes, latency, build time, memory, scaling.

Usage (from the repo root): .venv/bin/python bench/matching.py [PATH_TO_BANKING77] [--config both|default|lexical]
[--seeds 0 1 2] [--no-scaling] [--tune] [--quick] [--decisions [--every N] [--cache DIR]] [--calibration-cost]
[--oos-bound] [--loo].
See bench/MATCHING.md for the figures and what they mean; the decisions (what the visitor sees, out of scope,
priors against the per-bot calibration, French and Dutch sets) are in bench/matching_decisions.py.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from bench._common import (
    DEFAULT_BANKING77,
    Timer,
    load_split,
    per_item_sample,
    percentile,
    rss_mb,
)
from knowledge.matching import (
    FormulationEntry,
    Matcher,
    MatcherConfig,
    embed_formulations,
)
from knowledge.matching import embeddings as emb
from knowledge.matching.decide import DIRECT, EVIDENCE, REWORD, Fusion, Thresholds
from knowledge.matching.scoring import softmax, zscore

CONFIGS = {"default": True, "lexical": False}


def entries_for(rows, cat_index, vectors=None):
    """FormulationEntry per row; ids are row positions in the train split so stored vectors line up."""
    out = []
    for rid, (text, cat) in rows:
        out.append(
            FormulationEntry(
                id=rid,
                item_id=cat_index[cat],
                text=text,
                vector=vectors[rid] if vectors else None,
            )
        )
    return out


def evaluate(matcher, questions, cat_index, thresholds: Thresholds | None = None):
    """Accuracy, outcome shares, outcome quality and latency of `matcher` over `questions`."""
    if thresholds is not None:
        matcher.thresholds = thresholds
    lat = []
    top1 = top3 = 0
    counts = {"direct": 0, "reword": 0, "misunderstood": 0}
    direct_ok = reword_ok = 0
    for text, cat in questions:
        gold = cat_index[cat]
        t0 = time.perf_counter()
        res = matcher.match(text)
        lat.append((time.perf_counter() - t0) * 1000)
        ids = [c.item_id for c in res.ranked]
        top1 += bool(ids) and ids[0] == gold
        top3 += gold in ids[:3]
        counts[res.outcome] += 1
        if res.outcome == DIRECT:
            direct_ok += res.candidates[0].item_id == gold
        elif res.outcome == REWORD:
            reword_ok += gold in [c.item_id for c in res.candidates]
    n = len(questions)
    return {
        "top1": top1 / n,
        "top3": top3 / n,
        "direct": counts["direct"] / n,
        "reword": counts["reword"] / n,
        "misunderstood": counts["misunderstood"] / n,
        "direct_precision": direct_ok / counts["direct"] if counts["direct"] else float("nan"),
        "reword_hit": reword_ok / counts["reword"] if counts["reword"] else float("nan"),
        "median_ms": percentile(lat, 50),
        "p99_ms": percentile(lat, 99),
    }


def build(rows, cat_index, use_embeddings, vectors=None, **settings):
    """(matcher, build seconds until usable, RSS growth in MiB, seconds until the final classifier is in place).

    `settings` override MatcherConfig fields (the tuning tries values)."""
    before = rss_mb()
    t0 = time.perf_counter()
    config = MatcherConfig(use_embeddings=use_embeddings, **settings)
    m = Matcher.build("en", entries_for(rows, cat_index, vectors), [], config)
    usable = time.perf_counter() - t0
    m.wait_ready()
    return m, usable, rss_mb() - before, time.perf_counter() - t0


def fmt_row(name, r, build_s, mem, ready):
    return (
        f"  {name:<14} top1 {r['top1']:.3f}  top3 {r['top3']:.3f} | direct {r['direct']:.1%} "
        f"(right {r['direct_precision']:.1%})  reword {r['reword']:.1%} (right among them {r['reword_hit']:.1%})  "
        f"misunderstood {r['misunderstood']:.1%} | median {r['median_ms']:.2f} ms  p99 {r['p99_ms']:.2f} ms | "
        f"build {build_s:.2f} s (classifier final after {ready:.2f} s)  index +{mem:.0f} MiB"
    )


def run_accuracy(train, test, cat_index, configs, seeds, vectors):
    rows_all = list(enumerate(train))
    results = {}
    for cname in configs:
        use = CONFIGS[cname]
        print(f"\n== configuration: {cname} ({'lexical + USE-multilingual-v3 embeddings' if use else 'lexical only'})")
        for label, per_item in (("full", None), ("10 per item", 10), ("5 per item", 5)):
            runs = []
            for seed in seeds if per_item else [0]:
                kept = per_item_sample(train, per_item, seed)
                keep_ids = {id(r) for r in kept}
                rows = [(i, r) for i, r in rows_all if id(r) in keep_ids]
                m, secs, mem, ready = build(rows, cat_index, use, vectors if use else None)
                r = evaluate(m, test, cat_index)
                runs.append((r, secs, mem, ready))
                del m
            avg = {k: float(np.mean([x[0][k] for x in runs])) for k in runs[0][0]}
            secs = float(np.mean([x[1] for x in runs]))
            mem = float(np.mean([x[2] for x in runs]))
            ready = float(np.mean([x[3] for x in runs]))
            name = label + (f" (seeds {','.join(map(str, seeds))})" if per_item else "")
            print(fmt_row(name, avg, secs, mem, ready))
            if len(runs) > 1:
                print(
                    "    top-1 per seed: "
                    + " / ".join(f"{x[0]['top1']:.4f}" for x in runs)
                    + f" (mean {avg['top1']:.4f})"
                )
            results[(cname, label)] = avg
    return results


def check(train, cat_index, configs, vectors):
    """Top-1 on a check set made of the train split only, to compare matchers without the test split: all
    77 items, 5 formulations per item drawn five times (10 per item three times), and for each draw up to
    25 of every item's other train formulations as questions. The default configuration is checked in
    both vector layouts (English with MiniLM; USE alone, as French and Dutch bots have)."""
    by_cat = {}
    for i, (_, c) in enumerate(train):
        by_cat.setdefault(c, []).append(i)
    layouts = [("default", "use+minilm", True), ("default", "use", False), ("lexical", "lexical", True)]
    print("\n== check set (train split only)")
    for cname, layout, english_model in layouts:
        if cname not in configs:
            continue
        for per_item, draws in ((5, 5), (10, 3)):
            accs = []
            for draw in range(draws):
                rng = random.Random(1000 + draw)
                kb, questions = [], []
                for c in sorted(by_cat):
                    picked = rng.sample(by_cat[c], per_item)
                    kb += picked
                    others = [i for i in by_cat[c] if i not in set(picked)]
                    questions += [train[i] for i in rng.sample(others, min(25, len(others)))]
                rows = [(i, train[i]) for i in sorted(kb)]
                m, _, _, _ = build(rows, cat_index, CONFIGS[cname], vectors, english_model=english_model)
                accs.append(evaluate(m, questions, cat_index)["top1"])
            print(
                f"  {layout:<10} {per_item:>2} per item: top-1 {np.mean(accs):.4f} "
                f"(draws: {' / '.join(f'{a:.4f}' for a in accs)})"
            )


def run_concurrency(train, test, cat_index, vectors, questions=800):
    """Matches per second and latency with 1, 2 and 4 client threads sharing one index (the full train
    split, default configuration), as concurrent requests of one server process would."""
    print("\n== concurrency (default configuration, full train split, one process)")
    m, _, _, _ = build(list(enumerate(train)), cat_index, True, vectors)
    texts = [t for t, _ in test[:questions]]
    for t in texts[:20]:
        m.match(t)

    def one(text):
        t0 = time.perf_counter()
        m.match(text)
        return (time.perf_counter() - t0) * 1000

    for clients in (1, 2, 4):
        with Timer() as wall, ThreadPoolExecutor(max_workers=clients) as pool:
            lat = list(pool.map(one, texts))
        print(
            f"  {clients} client(s): {len(texts) / wall.seconds:.0f} matches/s, median {percentile(lat, 50):.2f} ms, "
            f"p99 {percentile(lat, 99):.2f} ms"
        )


def synthetic(train, size, seed=0):
    """`size` formulations: the train split, then variations of it (a word dropped, swapped, replaced or added)."""
    rng = random.Random(seed)
    vocab = sorted({w for t, _ in train for w in t.lower().split()})
    order = list(range(len(train)))
    random.Random(seed).shuffle(order)  # so that 1k formulations already cover every item
    out = []
    for i in range(size):
        base = order[i % len(train)]
        text, cat = train[base]
        rep = i // len(train)
        if rep:
            words = text.split()
            for _ in range(1 + rep % 3):
                op = rng.randrange(4)
                j = rng.randrange(len(words))
                if op == 0 and len(words) > 3:
                    del words[j]
                elif op == 1 and len(words) > 1:
                    k = min(j + 1, len(words) - 1)
                    words[j], words[k] = words[k], words[j]
                elif op == 2:
                    words[j] = rng.choice(vocab)
                else:
                    words.insert(j, rng.choice(vocab))
            text = " ".join(words)
        out.append((text, f"{cat}#{rep}", base))  # each replicate is its own item: item count grows with size
    return out


def run_scaling(train, test, configs, base_vectors):
    print("\n== scaling (synthetic formulations: the train split, then variations of it; see bench/MATCHING.md)")
    questions = [t for t, _ in test[:400]]
    rng = np.random.default_rng(0)
    for cname in configs:
        use = CONFIGS[cname]
        for size in (1_000, 10_000, 100_000):
            synth = synthetic(train, size)
            rows = [(t, c) for t, c, _ in synth]
            cats = sorted({c for _, c in rows})
            cat_index = {c: i for i, c in enumerate(cats)}
            vectors = None
            if use:
                # Stored vectors for variations: the base text's vector plus noise (cosine about 0.9), so that the
                # scaling run measures index size and speed without spending minutes embedding 100k texts.
                vectors = []
                for i, (_, _, base) in enumerate(synth):
                    v = emb.from_bytes(base_vectors[base], "en")
                    if i >= len(train):
                        v = v + rng.normal(0, 0.02, v.shape).astype(np.float32)
                        for part in np.split(v, [emb.USE_DIM]):  # each model's part stays a unit vector
                            if part.size:
                                part /= np.linalg.norm(part)
                    vectors.append(emb.to_bytes(v))
            m, secs, mem, ready = build(list(enumerate(rows)), cat_index, use, vectors)
            lat = []
            for q in questions:
                t0 = time.perf_counter()
                m.match(q)
                lat.append((time.perf_counter() - t0) * 1000)
            extra = f"  index +{mem:.0f} MiB (process {rss_mb():.0f} MiB)" if size >= 100_000 else ""
            print(
                f"  {cname:<8} {size:>7,} formulations, {len(cats):>5} items: median {percentile(lat, 50):.2f} ms  "
                f"p99 {percentile(lat, 99):.2f} ms  build (stored vectors) {secs:.2f} s, classifier final "
                f"after {ready:.2f} s{extra}"
            )
            del m, rows, vectors, synth


def tune(train, vectors, configs, seed=0):
    """Fit the score calibration and choose thresholds on the train split only (never the test split).

    Items are split: 67 stay in the knowledge base (80% of their formulations, or 5 of them), 10 are
    held out entirely and play out-of-scope questions; the other 20% of in-scope formulations play
    in-scope questions. The calibration is a logistic regression of "the best candidate is right" on
    (evidence share, similarity); thresholds maximise a utility over the outcomes (see bench/MATCHING.md).
    """
    rng = random.Random(seed)
    cats = sorted({c for _, c in train})
    oos = set(rng.sample(cats, 10))
    by_cat = {}
    for i, (_, c) in enumerate(train):
        by_cat.setdefault(c, []).append(i)
    kb_full, questions = [], []
    for c in cats:
        idx = list(by_cat[c])
        rng.shuffle(idx)
        if c in oos:
            questions += [(i, None) for i in idx[:40]]
            continue
        cut = int(len(idx) * 0.8)
        kb_full += idx[:cut]
        questions += [(i, c) for i in idx[cut:][:25]]
    # Three 5-per-item samples of the same 80% (one sample's held-out top-1 moves by a point from sample to
    # sample): the first 5 of each item's shuffled formulations, then two random draws.
    kb_fives = [[i for c in cats if c not in oos for i in [j for j in kb_full if train[j][1] == c][:5]]]
    for sample in (1, 2):
        pick = random.Random(seed * 100 + sample)
        kb_fives.append(
            [i for c in cats if c not in oos for i in pick.sample([j for j in kb_full if train[j][1] == c], 5)]
        )
    # Two 10-per-item draws too: the "few" regime serves both sizes (decide.FUSION).
    kb_tens = []
    for sample in (3, 4):
        pick = random.Random(seed * 100 + sample)
        kb_tens.append(
            [i for c in cats if c not in oos for i in pick.sample([j for j in kb_full if train[j][1] == c], 10)]
        )
    cat_index = {c: i for i, c in enumerate(cats)}
    golds = [cat_index[cat] if cat else -1 for _, cat in questions]
    for cname in configs:
        use = CONFIGS[cname]
        qvecs = emb.encode([train[qi][0] for qi, _ in questions], "en") if use else None
        runs = []  # (matcher, [(parts, gold)]) with the chosen settings: one per regime and layout
        # "many": the best held-out top-1 over a small grid of weights, on the 80% knowledge base, per vector
        # layout (English with MiniLM; USE alone, as French and Dutch bots have).
        rows = [(i, train[i]) for i in sorted(kb_full)]
        for layout, english_model in (("use+minilm", True), ("use", False)) if use else (("lexical", True),):
            m, _, _, _ = build(rows, cat_index, use, vectors if use else None, english_model=english_model)
            qs = held_out_parts(m, train, questions, golds, qvecs)
            best = None
            for weights in many_grid(use):
                m.fusion = Fusion(weights)
                acc = top1(m, qs)
                if best is None or acc > best[0]:
                    best = (acc, m.fusion)
            m.fusion = best[1]
            runs.append((m, qs))
            print(f"  {cname} many ({layout}): {best[1]} (held-out top-1 {best[0]:.3f})")
        if use:
            runs += fit_few(train, kb_fives, kb_tens, cat_index, vectors, questions, golds, qvecs, cname)
        else:
            runs.append(choose_few_lexical(train, kb_fives, cat_index, questions, golds, cname))
        feats, labels, cands = [], [], []
        for m, qs in runs:
            mask = np.ones(len(m.item_ids), dtype=bool)
            for p, gold in qs:
                share = softmax(m.fuse(p, mask), mask)
                sim = p["similarity"]
                order = np.argsort(-share)[:3]
                feats.append([[float(share[j]), float(sim[j])] for j in order])
                labels.append(gold)
                cands.append([int(m.item_ids[j]) for j in order])
        # Logistic regression on every (query, candidate) pair: is this candidate the right item?
        X = np.array([f for fs in feats for f in fs], dtype=np.float64)
        y = np.array([float(c == g) for cs, g in zip(cands, labels, strict=True) for c in cs])
        w, b = np.zeros(2), 0.0
        for _ in range(3000):
            p = 1 / (1 + np.exp(-(X @ w + b)))
            g = p - y
            w -= 0.5 * (X.T @ g) / len(y)
            b -= 0.5 * g.mean()
        print(f"  {cname}: calibration share={w[0]:.2f} similarity={w[1]:.2f} bias={b:.2f}")
        # Scores of the candidates of every question, then the thresholds with the best utility.
        S = [[1 / (1 + np.exp(-(f[0] * w[0] + f[1] * w[1] + b))) for f in fs] for fs in feats]
        best = None
        for direct in np.arange(0.30, 0.96, 0.025):
            for reword in np.arange(0.05, direct, 0.025):
                u = utility(S, cands, labels, direct, reword)
                if best is None or u > best[0]:
                    best = (u, direct, reword)
        u, direct, reword = best
        print(f"  {cname}: direct={direct:.3f} reword={reword:.3f} (utility {u:.3f} per question)")


def choose_few_lexical(train, kb_fives, cat_index, questions, golds, cname):
    """Lexical "few": the grid of `many_grid` on the three 5-per-item knowledge bases; (matcher, parts) of the first."""
    built = []
    for kb in kb_fives:
        m, _, _, _ = build([(i, train[i]) for i in sorted(kb)], cat_index, False)
        built.append((m, held_out_parts(m, train, questions, golds, None)))
    best = None
    for weights in many_grid(False):
        accs = []
        for m, qs in built:
            m.fusion = Fusion(weights)
            accs.append(top1(m, qs))
        if best is None or float(np.mean(accs)) > best[0]:
            best = (float(np.mean(accs)), Fusion(weights))
    for m, _ in built:
        m.fusion = best[1]
    print(f"  {cname} few: {best[1]} (held-out top-1 {best[0]:.3f}, mean over {len(built)} knowledge bases)")
    return built[0]


def fit_few(train, kb_fives, kb_tens, cat_index, vectors, questions, golds, qvecs, cname):
    """Default "few", per vector layout (English with MiniLM; USE alone, as French and Dutch bots have): a
    listwise softmax regression of the right item on the z-scored evidence, fitted on the in-scope held-out
    questions of the three 5-per-item and two 10-per-item knowledge bases. [(matcher, parts)] of the first
    5-per-item base of each layout, with the fitted weights."""
    runs = []
    for layout, english_model in (("use+minilm", True), ("use", False)):
        built = []
        for kb in kb_fives + kb_tens:
            # Every evidence weighed during the fit, so that the index keeps all of it (the LDA too).
            m, _, _, _ = build(
                [(i, train[i]) for i in sorted(kb)],
                cat_index,
                True,
                vectors,
                english_model=english_model,
                fusion_weights=dict.fromkeys(EVIDENCE, 1.0),
            )
            built.append((m, held_out_parts(m, train, questions, golds, qvecs)))
        names = [n for n in EVIDENCE if n in built[0][1][0][0] and n != "knn"]
        fusion = Fusion(fit_listwise(built, names), minilm=built[0][0].fusion.minilm)
        accs = []
        for m, qs in built:
            m.fusion = fusion
            accs.append(top1(m, qs))
        runs.append(built[0])
        print(
            f"  {cname} few ({layout}): {fusion} (held-out top-1 {np.mean(accs[: len(kb_fives)]):.3f} at 5 per "
            f"item, {np.mean(accs[len(kb_fives) :]):.3f} at 10 per item)"
        )
    return runs


def held_out_parts(m, train, questions, golds, qvecs):
    """[(every evidence of the input, gold item)] for the held-out questions (gold -1: out of scope)."""
    width = m.vectors.shape[1] if m.vectors is not None else 0
    return [
        (m.components(train[qi][0], None if qvecs is None else qvecs[n][:width], evidence=EVIDENCE), g)
        for n, ((qi, _), g) in enumerate(zip(questions, golds, strict=True))
    ]


def many_grid(use):
    """Fusion weights tried for the "many" regime (and the lexical "few" one): the classifier, the nearest
    formulations and the lexical part, whose centroid weighs `ce` against its top-3 formulations."""
    if not use:
        return [{"lex_top": 1 / (1 + ce), "lex_centroid": ce / (1 + ce)} for ce in (0.25, 0.5, 1, 2, 4, 8, 16)]
    return [
        {"classifier": c, "knn": k, "lex_top": lx / (1 + ce), "lex_centroid": lx * ce / (1 + ce)}
        for c in (1.0, 2.0, 3.0)
        for k in (0.5, 1.0)
        for lx in (0.0, 0.15, 0.3)
        for ce in (1.0, 2.0)
    ]


def top1(m, qs):
    """Share of in-scope questions whose best fused evidence is the right item."""
    mask = np.ones(len(m.item_ids), dtype=bool)
    return float(np.mean([int(m.item_ids[np.argmax(m.fuse(p, mask))]) == g for p, g in qs if g >= 0]))


def fit_listwise(built, names, steps=300, learning_rate=0.05):
    """Weights of the evidence `names` maximising the likelihood of the right item under a softmax over
    the items' weighted z-scores (in-scope questions of every knowledge base in `built`), by Adam."""
    X, y = [], []
    for m, qs in built:
        mask = np.ones(len(m.item_ids), dtype=bool)
        for p, g in qs:
            if g >= 0:
                X.append(np.stack([zscore(p[n], mask) for n in names], axis=1))
                y.append(int(np.searchsorted(m.item_ids, g)))
    X, y = np.stack(X).astype(np.float64), np.asarray(y)
    w = np.zeros(len(names))
    w[names.index("classifier")] = 1.0
    mw, vw = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        z = X @ w
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(len(y)), y] -= 1.0
        g = np.einsum("qi,qif->f", p, X) / len(y)
        mw = 0.9 * mw + 0.1 * g
        vw = 0.999 * vw + 0.001 * g * g
        w -= learning_rate * (mw / (1 - 0.9**t)) / (np.sqrt(vw / (1 - 0.999**t)) + 1e-8)
    return {n: round(float(v), 2) for n, v in zip(names, w, strict=True)}


def utility(S, cands, labels, direct, reword, window=0.3):
    """Mean value of the outcomes: right direct +1, wrong direct -1 (a wrong answer costs more than a
    question back), reword holding the right item +0.5, useless reword -0.25, misunderstood in scope -0.25,
    misunderstood out of scope +0.5 (the right reaction)."""
    total = 0.0
    for scores, cs, gold in zip(S, cands, labels, strict=True):
        top = scores[0] if scores else 0.0
        if top >= direct:
            total += 1.0 if cs[0] == gold else -1.0
        elif top >= reword:
            offered = [c for c, s in zip(cs, scores, strict=True) if s >= max(reword, top - window)]
            total += 0.5 if gold in offered else -0.25
        else:
            total += 0.5 if gold == -1 else -0.25
    return total / len(S)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "path",
        nargs="?",
        default=str(DEFAULT_BANKING77),
        help="folder holding train.csv and test.csv",
    )
    ap.add_argument("--config", choices=["both", "default", "lexical"], default="both")
    ap.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2],
        help="seeds for the 10/5-per-item samples",
    )
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--tune", action="store_true", help="fit calibration and thresholds on the train split, then stop")
    ap.add_argument(
        "--check",
        action="store_true",
        help="top-1 on the train-only check set (knowledge bases and questions both from the train split), then stop",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="every 6th test question, one seed, no scaling",
    )
    ap.add_argument(
        "--decisions",
        action="store_true",
        help="what the visitor sees, out of scope (priors vs calibrated): BANKING77, fr and nl sets, then stop",
    )
    ap.add_argument(
        "--oos-bound",
        action="store_true",
        help="the best out-of-scope F1 any threshold could give, chosen on the test questions themselves, then stop",
    )
    ap.add_argument(
        "--loo",
        action="store_true",
        help="leave one corpus out: the calibration's utility chosen on the other corpora, scored on each, then stop",
    )
    ap.add_argument("--every", type=int, default=4, help="with --decisions: every N-th BANKING77 test question")
    ap.add_argument("--cache", type=Path, default=None, help="with --decisions: keep computed vectors in this folder")
    ap.add_argument(
        "--calibration-cost", action="store_true", help="build time with and without calibration at 15,000 formulations"
    )
    args = ap.parse_args(argv)

    path = Path(args.path)
    if args.decisions or args.calibration_cost or args.oos_bound or args.loo:
        from bench import matching_decisions, matching_loo, oos_bound

        configs = ["default", "lexical"] if args.config == "both" else [args.config]
        if "default" in configs and not emb.available():
            configs.remove("default")
        if args.decisions:
            matching_decisions.run(path, configs, every=args.every, cache_dir=args.cache)
        if args.calibration_cost:
            matching_decisions.calibration_cost(path, configs, cache_dir=args.cache)
        if args.oos_bound:
            oos_bound.run(path, configs, every=args.every, cache_dir=args.cache)
        if args.loo:
            if emb.available():
                matching_loo.run(path, every=args.every, cache_dir=args.cache)
            else:  # the calibration it chooses for runs in the default configuration only
                print("--loo needs the embeddings' models (the default configuration): nothing measured")
        return
    train, test = load_split(path, "train"), load_split(path, "test")
    cats = sorted({c for _, c in train})
    cat_index = {c: i for i, c in enumerate(cats)}
    configs = ["default", "lexical"] if args.config == "both" else [args.config]
    if args.quick:
        test, args.seeds, args.no_scaling = test[::6], args.seeds[:1], True
    print(f"BANKING77 at {path}: {len(train)} train formulations, {len(test)} test questions, {len(cats)} items")

    vectors = None
    if "default" in configs:
        if not emb.available():
            print("embeddings unavailable (package missing or MATCHING_EMBEDDINGS=off): default configuration skipped")
            configs.remove("default")
        else:
            before = rss_mb()
            with Timer() as t_load:
                emb.encode(["warm up"])
            print(f"model load {t_load.seconds:.2f} s, +{rss_mb() - before:.0f} MiB (once per process)")
            with Timer() as t_vec:
                vectors = embed_formulations([t for t, _ in train], "en")
            with Timer() as t_cold:
                if not args.tune and not args.check:
                    Matcher.build(
                        "en",
                        entries_for(list(enumerate(train)), cat_index),
                        [],
                        MatcherConfig(use_embeddings=True),
                    )
            print(
                f"cold build, full train split ({len(train)} formulations, vectors computed): {t_cold.seconds:.1f} s "
                f"(embed_formulations alone: {t_vec.seconds:.1f} s)"
            )
    if args.tune:
        print("\n== tuning on the train split (held-out formulations and held-out items), test split unused")
        tune(train, vectors, configs)
        return
    if args.check:
        check(train, cat_index, configs, vectors)
        return
    run_accuracy(train, test, cat_index, configs, args.seeds, vectors)
    if "default" in configs and not args.quick:
        run_concurrency(train, test, cat_index, vectors)
    if not args.no_scaling:
        run_scaling(train, test, configs, vectors)


if __name__ == "__main__":
    main()
