"""Side threads for work that releases the GIL (MiniLM inference, large matrix products), one per core."""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# Below this many rows a product is over before a second thread would help.
SPLIT_ROWS = 8192


@functools.cache
def pool() -> ThreadPoolExecutor:
    """One thread per core, so that concurrent requests do not queue behind a single one."""
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 2, thread_name_prefix="matching")


def matvec(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """`matrix @ vector`, in two halves computed at once (one here, one on a side thread) when the matrix is
    large: BLAS runs one thread per call in a process that loads the models (see embeddings), so this is how
    the products of large indexes still use both cores."""
    rows = matrix.shape[0]
    if rows < SPLIT_ROWS or (os.cpu_count() or 1) < 2:
        return matrix @ vector
    half = rows // 2
    lower = pool().submit(np.matmul, matrix[half:], vector)
    return np.concatenate([matrix[:half] @ vector, lower.result()])
