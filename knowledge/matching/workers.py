"""Side threads for work that releases the GIL (MiniLM inference, large matrix products), used only while a
single query is in progress: under concurrent queries every core is busy already, and handing work to
other threads then costs throughput instead of saving time."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress

import numpy as np

# Below this many rows a product is over before a second thread would help.
SPLIT_ROWS = 8192

_in_flight = 0
_guard = threading.Lock()


def cores() -> int:
    """This process's share of the machine's cores: the server processes that share them (gunicorn's
    workers; deploy/gunicorn.conf.py tells them their number in WEB_CONCURRENCY) each get an equal part,
    so that no worker's side threads take a core another worker's requests need."""
    try:
        processes = max(1, int(os.environ.get("WEB_CONCURRENCY") or 1))
    except ValueError:
        processes = 1
    return max(1, (os.cpu_count() or 1) // processes)


@functools.cache
def pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=max(2, cores()), thread_name_prefix="matching")


# Background work runs at this nice value: a request's threads come first on a busy core.
BACKGROUND_NICE = 10


def lower_priority() -> None:
    """Make the calling thread background work (Linux keeps a nice value per thread; elsewhere a no-op)."""
    with suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, thread) < BACKGROUND_NICE:  # never raise a process run nicer still
            os.setpriority(os.PRIO_PROCESS, thread, BACKGROUND_NICE)


@functools.cache
def bulk_pool() -> ThreadPoolExecutor:
    """Threads for encoding many texts at once (a vector job's chunk, a first build), apart from `pool`, whose
    threads a request's query must find free, and at a lower priority than requests. Only these threads are
    lowered: a thread inherits its creator's nice value and may not raise it back, so a lowered thread must
    never be the first to use a pool or library that requests share (see embeddings._MiniLM)."""
    return ThreadPoolExecutor(max_workers=cores(), thread_name_prefix="matching-bulk", initializer=lower_priority)


@contextmanager
def query() -> Iterator[None]:
    """Marks a query in progress in this process (see `alone`)."""
    global _in_flight
    with _guard:
        _in_flight += 1
    try:
        yield
    finally:
        with _guard:
            _in_flight -= 1


def alone() -> bool:
    """Whether side threads may help: at most one query in progress and more than one core for this process."""
    return _in_flight <= 1 and cores() > 1


def matvec(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """`matrix @ vector`, in two halves computed at once (one here, one on a side thread) when the matrix is
    large and nothing else runs: BLAS runs one thread per call in a process that loads the models (see
    embeddings), so this is how a lone query still uses both cores on a large index."""
    rows = matrix.shape[0]
    if rows < SPLIT_ROWS or not alone():
        return matrix @ vector
    half = rows // 2
    lower = pool().submit(np.matmul, matrix[half:], vector)
    return np.concatenate([matrix[:half] @ vector, lower.result()])
