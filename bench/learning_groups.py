"""How well the learning page's grouping (dialogs/learning/grouping.py) puts together inputs that ask
the same thing: labelled visitor questions are clustered at several thresholds, per representation
(sentence vectors with spelling, spelling alone), and scored by pairwise precision, recall and F1 against their labels.
Out-of-scope questions (no label) each count as a question of their own.

    .venv/bin/python bench/learning_groups.py
"""

from __future__ import annotations

import csv
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import REPO
from dialogs.learning import grouping
from knowledge.matching import embeddings

SETS = [("fr", REPO / "bench/data/fr_shop_questions.csv"), ("nl", REPO / "bench/data/nl_gemeente_questions.csv")]
BANKING77 = (REPO / ".." / "shared" / "bench" / "banking77" / "test.csv").resolve()


def load(path) -> tuple[list[str], list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    texts = [row["text"] for row in rows]
    labels = [row.get("item") or row.get("category") or f"out-{i}" for i, row in enumerate(rows)]
    return texts, labels


def pairwise(leaders: list[int], labels: list[str]) -> tuple[float, float, float]:
    same_group = same_label = both = 0
    for a, b in itertools.combinations(range(len(labels)), 2):
        g, lab = leaders[a] == leaders[b], labels[a] == labels[b]
        same_group += g
        same_label += lab
        both += g and lab
    precision = both / same_group if same_group else 1.0
    recall = both / same_label if same_label else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def run(language: str, texts: list[str], labels: list[str]) -> None:
    order = list(range(len(texts)))
    started = time.perf_counter()
    reps = {"lexical": grouping.representation(texts, language, None)}
    lexical_ms = (time.perf_counter() - started) * 1000
    encode_ms = 0.0
    if embeddings.available():
        started = time.perf_counter()
        reps["embeddings"] = grouping.representation(texts, language, embeddings.encode(texts, language))
        encode_ms = (time.perf_counter() - started) * 1000
    print(
        f"\n{language}: {len(texts)} questions, {len(set(labels))} labels; "
        f"lexical vectors {lexical_ms:.0f} ms, sentence vectors {encode_ms:.0f} ms"
    )
    for mode, vectors in reps.items():
        for threshold in (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6):
            leaders = grouping.cluster(vectors, order, threshold)
            p, r, f1 = pairwise(leaders, labels)
            mark = " <- used" if abs(threshold - grouping.SIMILAR[mode]) < 1e-9 else ""
            print(
                f"  {mode:10s} {threshold:.2f}: {len(set(leaders)):4d} groups  P {p:.3f}  R {r:.3f}  F1 {f1:.3f}{mark}"
            )


def main() -> None:
    for language, path in SETS:
        run(language, *load(path))
    if BANKING77.is_file():
        texts, labels = load(BANKING77.parent / "test.csv")
        # 20 categories, 20 questions each: the size of a bot's month of misunderstood inputs.
        keep = sorted(set(labels))[:20]
        rows = [(t, c) for t, c in zip(texts, labels, strict=True) if c in keep]
        rows = [r for c in keep for r in [x for x in rows if x[1] == c][:20]]
        run("en", [t for t, _ in rows], [c for _, c in rows])


if __name__ == "__main__":
    main()
