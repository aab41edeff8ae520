"""Spelling tolerance: find the known words one or two edits away from an unknown word (SymSpell-style deletes)."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from .normalise import squeeze


def max_edits(length: int) -> int:
    """Edits allowed for a word of `length` letters: none under 4, one from 4, two from 8."""
    if length < 4:
        return 0
    if length < 8:
        return 1
    return 2


def _deletes(word: str, depth: int) -> set[str]:
    out = {word}
    frontier = {word}
    for _ in range(depth):
        nxt = set()
        for w in frontier:
            for i in range(len(w)):
                nxt.add(w[:i] + w[i + 1 :])
        out |= nxt
        frontier = nxt
    return out


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (adjacent transposition counts one), or limit+1 when above `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] | None = None
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        row_min = i
        ai = a[i - 1]
        for j in range(1, len(b) + 1):
            cost = 0 if ai == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if prev2 is not None and i > 1 and j > 1 and ai == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            row_min = min(row_min, v)
        if row_min > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1] if prev[-1] <= limit else limit + 1


class SpellIndex:
    """Vocabulary of known words, answering "which known words is this unknown word a typo of?".

    Words shorter than 4 letters are never corrected; the edit budget grows with length
    (see `max_edits`). Doubled letters are free: "adresse"/"address"-style differences still
    cost edits, but "helllo" -> "hello" does not, through the squeezed key.
    """

    def __init__(self, words: Iterable[str]):
        self.words = set(words)
        self._deletes: dict[str, list[str]] | None = None
        self._squeezed: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[tuple[str, int], ...]] = {}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _tables(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """Deletion and squeeze tables, built on the first unknown word (not at index build: rebuilds stay fast)."""
        if self._deletes is None:
            with self._lock:
                if self._deletes is None:
                    deletes: dict[str, list[str]] = {}
                    for w in self.words:
                        self._squeezed.setdefault(squeeze(w), []).append(w)
                        d = max_edits(len(w))
                        if d:
                            for key in _deletes(w, d):
                                deletes.setdefault(key, []).append(w)
                    self._deletes = deletes
        return self._deletes, self._squeezed

    def __contains__(self, word: str) -> bool:
        return word in self.words

    def corrections(self, word: str) -> tuple[tuple[str, int], ...]:
        """Known words near `word`, as (word, edits) pairs, closest first; () when none or when `word` is known."""
        if word in self.words:
            return ()
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        result = self._lookup(word)
        if len(self._cache) < 100_000:  # bounded: unknown words are unbounded in production
            self._cache[word] = result
        return result

    def _lookup(self, word: str) -> tuple[tuple[str, int], ...]:
        deletes, squeezed = self._tables()
        same = squeezed.get(squeeze(word))
        if same:
            return tuple((w, 0) for w in sorted(same))
        budget = max_edits(len(word))
        if budget == 0 or word.isdigit():
            return ()
        found: dict[str, int] = {}
        for key in _deletes(word, budget):
            for w in deletes.get(key, ()):
                if w in found:
                    continue
                limit = min(budget, max_edits(len(w)))
                d = edit_distance(word, w, limit)
                if d <= limit:
                    found[w] = d
        if not found:
            return ()
        best = min(found.values())
        # Keep only the closest candidates: a two-edit guess next to a one-edit one is noise.
        return tuple(sorted((w, d) for w, d in found.items() if d == best))
