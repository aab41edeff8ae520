"""Helpers shared by the benchmarks: loading BANKING77, sampling knowledge bases, timing and memory, and the
demo bot served in process."""

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


def demo_bot_in_process(database_url: str, scratch_prefix: str, **environment: str):
    """Django set up in this process on a scratch SQLite (or `database_url`, flushed), migrated, with the
    demo bot seeded; returns the bot. `environment` is set before Django loads (MATCHING_EMBEDDINGS…)."""
    import tempfile

    os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix=scratch_prefix)
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.update(environment)
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

    import django

    django.setup()
    from django.core.management import call_command

    from knowledge.demo.seed import seed_demo_bot

    call_command("migrate", verbosity=0)
    if database_url:
        call_command("flush", interactive=False, verbosity=0)
    bot, _ = seed_demo_bot()
    return bot
