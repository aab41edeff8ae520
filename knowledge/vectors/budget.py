"""The per-process memory budget of the bots' matching indexes (MATCHING_MEMORY_MB): beyond it the least
recently used bots' indexes are dropped; their next talk rebuilds them from the stored vectors."""

from __future__ import annotations

import logging
import sys
import threading
import types
import weakref

import numpy as np
from django.conf import settings

from knowledge.matching import heap

log = logging.getLogger(__name__)

MIB = 1024 * 1024
# What an index shares with every other (its settings, the language's word lists): not counted.
SHARED = ("config", "calibration", "fusion", "thresholds", "language")
# Code, modules, threads and locks: not the index's data (a thread would lead back to its target's module).
NOT_DATA = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, weakref.ref)
NOT_DATA += (threading.Thread, type(threading.Lock()), threading.Event, threading.Condition)
_sizes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def limit_bytes() -> int:
    return max(0, settings.MATCHING_MEMORY_MB) * MIB


def index_bytes(matcher) -> int:
    """An estimate of the memory an index holds: its arrays' bytes and its Python objects' sizes, measured
    once per index (large collections are sampled: a full walk took seconds at 15,000 formulations)."""
    size = _sizes.get(matcher)
    if size is None:
        size = deep_size(matcher)
        _sizes[matcher] = size
    return size


SAMPLE = 64


def deep_size(root) -> int:
    seen: set[int] = set()

    def size(obj, depth: int) -> float:
        if id(obj) in seen or isinstance(obj, NOT_DATA) or depth > 8:
            return 0
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            # Views (an index's postings are slices of one array) count their own extent: together they
            # cover their base once, and a sample of them extrapolates right.
            return obj.nbytes
        own = sys.getsizeof(obj)
        if isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
            return own
        if isinstance(obj, dict):
            parts = list(obj.items())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            parts = list(obj)
        elif hasattr(obj, "__dict__"):
            parts = [v for k, v in vars(obj).items() if obj is not root or k not in SHARED]
        elif hasattr(obj, "__slots__"):
            parts = [getattr(obj, name) for name in obj.__slots__ if hasattr(obj, name)]
        else:
            return own
        if len(parts) <= 2 * SAMPLE:
            return own + sum(size(part, depth + 1) for part in parts)
        # A large collection: its elements are alike (formulations, terms, postings): measure a spread sample.
        step = len(parts) / SAMPLE
        sample = [parts[int(i * step)] for i in range(SAMPLE)]
        return own + sum(size(part, depth + 1) for part in sample) * len(parts) / SAMPLE

    return int(size(root, 0))


def enforce(snapshots, keep=None) -> list[int]:
    """Drop the least recently used snapshots' indexes (never `keep`'s, the one being used) until the
    indexes fit the budget; the ids of the bots whose indexes were dropped."""
    limit = limit_bytes()
    sized = [(snap.last_used, snap, snap.index_bytes()) for snap in snapshots]
    total = sum(size for _, _, size in sized)
    dropped = []
    for _, snap, size in sorted(sized, key=lambda entry: entry[0]):
        if total <= limit:
            break
        if snap is keep or not size:
            continue
        snap.drop_indexes()
        total -= size
        dropped.append(snap.bot_id)
        log.info(
            "Matching index of bot %s dropped (%.0f MiB): over the budget of %d MiB",
            snap.bot_id,
            size / MIB,
            settings.MATCHING_MEMORY_MB,
        )
    if dropped:
        heap.release()
    return dropped


def usage(snapshots) -> dict:
    """The server status's figures: indexes in memory, their estimated size and the budget."""
    sizes = [snap.index_bytes() for snap in snapshots]
    return {
        "indexes": sum(1 for size in sizes if size),
        "usedMB": round(sum(sizes) / MIB, 1),
        "budgetMB": settings.MATCHING_MEMORY_MB,
    }
