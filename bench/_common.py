"""Helpers shared by the benchmarks: loading BANKING77, sampling knowledge bases, timing and memory."""

from __future__ import annotations

import csv
import gc
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BANKING77 = (REPO / ".." / "shared" / "bench" / "banking77").resolve()

if str(REPO) not in sys.path:  # run as `python bench/matching.py` from anywhere
    sys.path.insert(0, str(REPO))


def load_split(path: Path, name: str) -> list[tuple[str, str]]:
    """(text, category) rows of train.csv or test.csv."""
    with open(path / f"{name}.csv", newline="", encoding="utf-8") as f:
        return [(row["text"], row["category"]) for row in csv.DictReader(f)]


def per_item_sample(rows: list[tuple[str, str]], n: int | None, seed: int) -> list[tuple[str, str]]:
    """At most `n` rows per category, drawn with `seed` (all rows when n is None), in the original order."""
    if n is None:
        return list(rows)
    by_cat: dict[str, list[int]] = defaultdict(list)
    for i, (_, c) in enumerate(rows):
        by_cat[c].append(i)
    rng = random.Random(seed)
    keep: set[int] = set()
    for cat in sorted(by_cat):
        idx = by_cat[cat]
        keep.update(rng.sample(idx, min(n, len(idx))))
    return [r for i, r in enumerate(rows) if i in keep]


def rss_mb() -> float:
    """Resident memory of this process now, in MiB."""
    gc.collect()
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
