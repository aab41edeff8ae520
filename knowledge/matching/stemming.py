"""Snowball stemming per language (fr, en, nl), cached per word because inputs repeat the same words."""

from __future__ import annotations

import threading
from functools import lru_cache

import snowballstemmer

_NAMES = {
    "fr": "french",
    "en": "english",
    "nl": "dutch",
    "de": "german",
    "es": "spanish",
    "it": "italian",
}
# snowballstemmer's stemmer objects keep state while stemming, so each thread gets its own.
_local = threading.local()


def _stemmer(language: str):
    cache = getattr(_local, "stemmers", None)
    if cache is None:
        cache = _local.stemmers = {}
    s = cache.get(language)
    if s is None:
        name = _NAMES.get(language)
        s = cache[language] = snowballstemmer.stemmer(name) if name else None
    return s


@lru_cache(maxsize=200_000)
def stem(word: str, language: str) -> str:
    """Stem of `word` (already normalised) in `language`; the word itself for an unknown language."""
    s = _stemmer(language[:2].lower())
    if s is None or len(word) <= 2 or word.isdigit():
        return word
    return s.stemWord(word)
