"""Gives the C heap's free pages back to the system once a large index is final or dropped: glibc keeps
them for reuse, so a process's RSS would otherwise carry each build's temporaries (about 110 MiB after a
15,000-formulation build, bench/MATCHING.md)."""

from __future__ import annotations

import ctypes

# Under this many formulations a build leaves little behind, and tests and small bots build often.
LARGE_INDEX_ROWS = 2_000

try:
    _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
except (OSError, AttributeError):  # not glibc (musl, macOS): its allocator has its own policy
    _malloc_trim = None


def release() -> bool:
    """Return the heap's free pages to the system; whether the allocator could be asked."""
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


def release_after(rows: int) -> None:
    """`release`, after building or dropping an index of `rows` formulations if it was large."""
    if rows >= LARGE_INDEX_ROWS:
        release()
