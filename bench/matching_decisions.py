"""What the visitor sees, per bot: Direct / Reword / Misunderstood on answerable questions and out-of-scope
rejection with held-out intents, on BANKING77 and the French and Dutch sets of bench/data (LANGUAGE_SETS), with
the priors and with the per-bot calibration (knowledge/matching/calibration.py), in both configurations.

Usage (from the repo root): .venv/bin/python bench/matching.py --decisions [--every 4] [--cache DIR].
See bench/MATCHING.md ("Decisions") for the protocol and the figures.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench._common import load_split, per_item_sample, rss_mb
from knowledge.matching import FormulationEntry, Matcher, MatcherConfig, embed_formulations
from knowledge.matching import embeddings as emb
from knowledge.matching.decide import DIRECT, MISUNDERSTOOD, REWORD

DATA = Path(__file__).resolve().parent / "data"
HELD_OUT_SHARE = 0.2  # share of the items removed to make out-of-scope questions
# The French and Dutch sets of bench/data: ours (fr_shop, nl_gemeente), then corpora not written by us and never
# used to choose anything: NLP.js's French one and Home Assistant's Dutch and French ones (bench/data/README.md).
LANGUAGE_SETS = ("fr_shop", "nl_gemeente", "nlpjs_fr", "ha_nl", "ha_fr")


@dataclass
class DevSet:
    """A bot's knowledge base and test questions: kb [(text, item)], questions [(text, item or None)]."""

    name: str
    language: str
    kb: list[tuple[str, str]]
    questions: list[tuple[str, str | None]]


def load_devset(name: str) -> DevSet:
    data = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    kb = [(text, item["id"]) for item in data["items"] for text in item["formulations"]]
    with open(DATA / f"{name}_questions.csv", newline="", encoding="utf-8") as f:
        questions = [(row["text"], row["item"] or None) for row in csv.DictReader(f)]
    return DevSet(name, data["language"], kb, questions)


def load_banking77(path: Path, every: int) -> DevSet:
    """The train split as the knowledge base, every `every`-th test question (all answerable)."""
    train, test = load_split(path, "train"), load_split(path, "test")
    return DevSet("banking77", "en", train, [(t, c) for t, c in test[::every]])


class VectorCache:
    """Vectors per (language, text), computed once per run and kept on disk when a folder is given."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.memory: dict[tuple[str, str], bytes] = {}

    def get(self, texts: list[str], language: str) -> list[bytes]:
        missing = sorted({t for t in texts if (language, t) not in self.memory})
        if missing and self.folder is not None:
            key = hashlib.sha1(("\n".join(missing) + language).encode()).hexdigest()[:16]
            path = self.folder / f"vectors-{language}-{key}.npy"
            if path.exists():
                stored = np.load(path, allow_pickle=True)
                self.memory.update(((language, t), bytes(v)) for t, v in zip(missing, stored, strict=True))
                missing = []
        if missing:
            computed = embed_formulations(missing, language)
            self.memory.update(((language, t), v) for t, v in zip(missing, computed, strict=True))
            if self.folder is not None:
                self.folder.mkdir(parents=True, exist_ok=True)
                np.save(path, np.array(computed, dtype=object), allow_pickle=True)
        return [self.memory[(language, t)] for t in texts]


def build(devset: DevSet, kb, use_embeddings, calibrate, cache: VectorCache):
    """(matcher, seconds until it answers, seconds until ready: classifier and calibration final)."""
    items = sorted({c for _, c in devset.kb})
    index = {c: i for i, c in enumerate(items)}
    vectors = cache.get([t for t, _ in kb], devset.language) if use_embeddings else [None] * len(kb)
    entries = [
        FormulationEntry(id=n, item_id=index[c], text=t, vector=v)
        for n, ((t, c), v) in enumerate(zip(kb, vectors, strict=True))
    ]
    t0 = time.perf_counter()
    m = Matcher.build(devset.language, entries, [], MatcherConfig(use_embeddings=use_embeddings, calibrate=calibrate))
    answers = time.perf_counter() - t0
    m.wait_ready()
    return m, index, answers, time.perf_counter() - t0


def outcomes(m, index, questions, answerable: set[str], cache: VectorCache, language: str):
    """Counts of what the visitor sees, for answerable and out-of-scope questions."""
    q_vectors = None
    if m.vectors is not None:
        width = m.vectors.shape[1]
        q_vectors = [
            emb.from_bytes(v, language)[:width] for v in cache.get([m.model_input(t) for t, _ in questions], language)
        ]
    c = dict.fromkeys(
        ("n", "top1", "direct_right", "direct_wrong", "reword_first", "reword_any", "reword_none", "missed"), 0
    )
    o = dict.fromkeys(("n", "rejected", "direct", "reword"), 0)
    for n, (text, item) in enumerate(questions):
        evidence = m.evidence(text, vector=None if q_vectors is None else q_vectors[n])
        res = m.match(text, evidence=evidence)
        if item in answerable:
            gold = index[item]
            c["n"] += 1
            c["top1"] += bool(res.ranked) and res.ranked[0].item_id == gold
            offered = [x.item_id for x in res.candidates]
            if res.outcome == DIRECT:
                c["direct_right" if offered[0] == gold else "direct_wrong"] += 1
            elif res.outcome == REWORD:
                c["reword_first" if offered[0] == gold else "reword_any" if gold in offered else "reword_none"] += 1
            else:
                c["missed"] += 1
        else:
            o["n"] += 1
            o[{MISUNDERSTOOD: "rejected", DIRECT: "direct", REWORD: "reword"}[res.outcome]] += 1
    return c, o


def summary(c, o) -> dict[str, float]:
    n = max(c["n"], 1)
    out = {k: c[k] / n for k in c if k != "n"}
    out["visible"] = out["direct_right"] + out["reword_first"]
    out["answerable"] = c["n"]
    out["oos"] = o["n"]
    if o["n"]:
        precision = o["rejected"] / max(o["rejected"] + c["missed"], 1)
        recall = o["rejected"] / o["n"]
        out["oos_precision"], out["oos_recall"] = precision, recall
        out["oos_f1"] = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out["oos_direct"] = o["direct"] / o["n"]
    return out


def fmt(label: str, s: dict[str, float], build_s: float, ready_s: float) -> str:
    line = (
        f"  {label:<34} top-1 {s['top1']:.3f} | visible {s['visible']:.3f} = direct right {s['direct_right']:.1%}"
        f" + reword first {s['reword_first']:.1%} | right later in rewords {s['reword_any']:.1%}"
        f" | direct wrong {s['direct_wrong']:.1%} | useless reword {s['reword_none']:.1%}"
        f" | misunderstood {s['missed']:.1%} ({s['answerable']} answerable)"
    )
    if "oos_f1" in s:
        line += (
            f" | out of scope ({s['oos']}): P {s['oos_precision']:.2f} R {s['oos_recall']:.2f} F1 {s['oos_f1']:.2f}"
            f", direct {s['oos_direct']:.1%}"
        )
    return line + f" | build {build_s:.2f} s, ready {ready_s:.2f} s"


def held_out(devset: DevSet, kb, seed: int):
    """(knowledge base without a share of the items, their names): their questions become out of scope."""
    items = sorted({c for _, c in kb})
    removed = set(random.Random(seed).sample(items, max(1, round(len(items) * HELD_OUT_SHARE))))
    return [(t, c) for t, c in kb if c not in removed], removed


def run_devset(devset: DevSet, configs, cache: VectorCache, variants, held_out_seeds=(0,)) -> dict:
    """Every (configuration, knowledge base variant, priors|calibrated): printed and returned."""
    results = {}
    print(
        f"\n== {devset.name} ({devset.language}): {len(set(c for _, c in devset.kb))} items, {len(devset.kb)} "
        f"formulations, {len(devset.questions)} questions ({sum(1 for _, c in devset.questions if c is None)} "
        "written out of scope)"
    )
    for cname in configs:
        use = cname == "default"
        for vname, kb in variants:
            for calibrate in (False, True):
                label = f"{cname} {vname} {'calibrated' if calibrate else 'priors'}"
                m, index, answers, ready = build(devset, kb, use, calibrate, cache)
                answerable = {c for _, c in kb}
                s = summary(*outcomes(m, index, devset.questions, answerable, cache, devset.language))
                print(fmt(label, s, answers, ready))
                if calibrate and m.calibrated is not None:
                    f = m.calibrated
                    print(
                        f"    calibration: {f.calibration}, direct {f.thresholds.direct:.3f} reword "
                        f"{f.thresholds.reword:.3f} ({f.probes} probes, weight {f.weight})"
                    )
                results[(cname, vname, calibrate)] = s
                # Held-out intents: a share of the items removed; their questions are out of scope.
                scores = []
                for seed in held_out_seeds:
                    reduced, removed = held_out(devset, kb, seed)
                    hm, hindex, _, _ = build(devset, reduced, use, calibrate, cache)
                    hs = summary(
                        *outcomes(hm, hindex, devset.questions, {c for _, c in reduced}, cache, devset.language)
                    )
                    scores.append(hs)
                mean = {k: float(np.mean([x[k] for x in scores])) for k in scores[0]}
                print(
                    fmt(label + f" held-out {len(removed)} items x{len(scores)}", mean, 0.0, 0.0).split(" | build")[0]
                )
                results[(cname, vname + " held-out", calibrate)] = mean
                del m
    return results


def run(banking77: Path, configs, every: int = 4, cache_dir: Path | None = None, fr_nl_seeds=(0, 1, 2)):
    cache = VectorCache(cache_dir)
    results = {}
    for name in LANGUAGE_SETS:
        d = load_devset(name)
        results[name] = run_devset(d, configs, cache, [("full", d.kb)], held_out_seeds=fr_nl_seeds)
    b = load_banking77(banking77, every)
    five = per_item_sample(b.kb, 5, 0)
    results["banking77"] = run_devset(b, configs, cache, [("full", b.kb), ("5 per item", five)])
    return results


def calibration_cost(banking77: Path, configs, cache_dir: Path | None = None, size: int = 15_000):
    """Build time with and without the calibration on a 15,000-formulation English bot (the train split, then
    variations of it as in the scaling run; variations' vectors are the base text's plus noise)."""
    from bench.matching import synthetic

    cache = VectorCache(cache_dir)
    train = load_split(banking77, "train")
    synth = synthetic(train, size)
    rng = np.random.default_rng(0)
    print(f"\n== calibration cost, {size:,} formulations ({len({c for _, c, _ in synth})} items)")
    base = cache.get([t for t, _ in train], "en") if "default" in configs else None
    for cname in configs:
        use = cname == "default"
        entries = []
        for n, (text, cat, b) in enumerate(synth):
            vector = None
            if use:
                v = emb.from_bytes(base[b], "en")
                if n >= len(train):
                    v = v + rng.normal(0, 0.02, v.shape).astype(np.float32)
                    for part in np.split(v, [emb.USE_DIM]):
                        part /= np.linalg.norm(part)
                vector = emb.to_bytes(v)
            entries.append((text, cat, vector))
        cats = {c: i for i, c in enumerate(sorted({c for _, c, _ in entries}))}
        formulations = [FormulationEntry(n, cats[c], t, v) for n, (t, c, v) in enumerate(entries)]
        for calibrate in (False, True):
            before = rss_mb()
            t0 = time.perf_counter()
            m = Matcher.build("en", formulations, [], MatcherConfig(use_embeddings=use, calibrate=calibrate))
            answers = time.perf_counter() - t0
            m.wait_ready()
            ready = time.perf_counter() - t0
            print(
                f"  {cname:<8} calibrate={calibrate!s:<5} answers after {answers:.2f} s, ready (classifier and "
                f"calibration final) after {ready:.2f} s, +{rss_mb() - before:.0f} MiB"
                + (f"; {m.calibrated.probes} probes" if m.calibrated else "")
            )
            del m
