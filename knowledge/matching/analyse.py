"""Turns text into weighted index terms: normalise, tokenise, stop words, compounds, Dutch split verbs, spelling,
stems, bigrams."""

from __future__ import annotations

import itertools
import re
import sys
from dataclasses import dataclass
from functools import lru_cache

from .normalise import normalise
from .spelling import SpellIndex
from .stemming import stem
from .stopwords import stop_words
from .tokenise import tokenise

# A corrected or split word counts a little less than a word typed right: the guess may be wrong.
CORRECTED_WEIGHT = 0.8
SPLIT_WEIGHT = 0.9
BIGRAM_SEPARATOR = "\x1f"
UNKNOWN = "\x00unknown"
# Dutch separable verbs' particles: in a main clause the particle goes to the end ("Hoe vraag ik een paspoort
# aan?" is "aanvragen"). Only a particle that ends the input is read so (elsewhere these are prepositions).
SEPARABLE_PARTICLES = {
    "nl": frozenset(["aan", "af", "bij", "door", "in", "mee", "na", "om", "op", "over", "terug", "toe", "uit",
                     "voor", "weg", "vast", "los", "binnen", "buiten", "langs", "tegen", "neer", "samen"]),
}  # fmt: skip
_LAST_WORD = re.compile(r"([^\W\d_]+)[\W\d_]*$")


def content_words(text: str, language: str) -> list[str]:
    """Normalised words of `text` without stop words (all words when every one is a stop word)."""
    words = tokenise(normalise(text, language), language)
    stops = stop_words(language)
    kept = [w for w in words if w not in stops]
    return kept or words


@lru_cache(maxsize=100_000)
def index_terms(text: str, language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(surface words, terms) of a formulation: terms are stems plus bigrams of adjacent stems.

    Cached: rebuilding an index after one edit re-analyses only the formulations that changed. The words
    and terms are interned, so the cache and the indexes hold one string per distinct term, not one per
    formulation using it (13 -> 6 MiB for 15,000 formulations).
    """
    words = [sys.intern(w) for w in content_words(text, language)]
    stems = [sys.intern(stem(w, language)) for w in words]
    return tuple(words), tuple(stems + [sys.intern(b) for b in _bigrams(stems)])


@lru_cache(maxsize=100_000)
def split_verb(text: str, language: str) -> tuple[str, tuple[str, ...]] | None:
    """(particle, the content words before it) of a text that ends with a separable verb's particle, else None."""
    particles = SEPARABLE_PARTICLES.get(language[:2])
    if not particles:
        return None
    last = _LAST_WORD.search(text)
    if last is None or last.group(1).lower() not in particles:  # most texts: no need to tokenise them again
        return None
    raw = tokenise(normalise(text, language), language)
    particle = trailing_particle(raw, language)
    if particle is None:
        return None
    stops = stop_words(language)
    return particle, tuple(w for w in raw[:-1] if w not in stops)


def trailing_particle(words: list[str], language: str) -> str | None:
    """The separable verb's particle that ends these words (three at least: "Ventilator uit" has no verb)."""
    particles = SEPARABLE_PARTICLES.get(language[:2])
    return words[-1] if particles and len(words) >= 3 and words[-1] in particles else None


def whole_verb(particle: str, words, stems: set[str], language: str) -> tuple[int, str] | None:
    """(position in `words`, stem) of the first word that makes with `particle` a verb whose stem is in `stems`
    ("vraag" + "aan": "aanvragen", known from another formulation). Only a verb the knowledge base uses whole
    is rejoined: a noun before the particle makes no known word."""
    for i, word in enumerate(words):
        # "vraagt ... aan": the person's -t is not part of the verb's stem ("aanvraagt" is no stem).
        for form in (word, word[:-1]) if word.endswith("t") else (word,):
            whole = stem(particle + form, language)
            if whole in stems:
                return i, whole
    return None


def _bigrams(stems: list[str]) -> list[str]:
    return [a + BIGRAM_SEPARATOR + b for a, b in itertools.pairwise(stems)]


@dataclass
class QueryTerms:
    """Weighted terms of an input; `unknown` counts words the index has never seen (they lower the score)."""

    weights: dict[str, float]
    unknown: int
    words: list[str]


class QueryAnalyser:
    """Analyses inputs against one index's vocabulary (needed for spelling and compound decisions)."""

    def __init__(self, language: str, words: set[str], stems: set[str], spelling: bool = True):
        self.language = language
        self.words = words
        self.stems = stems
        self.spell = SpellIndex(words) if spelling else None
        self.stops = stop_words(language)

    def analyse(self, text: str) -> QueryTerms:
        lang = self.language
        raw = tokenise(normalise(text, lang), lang)
        raw = self._join_pairs(raw)
        content = [w for w in raw if w not in self.stops] or raw
        verb = self._separable_verb(raw, content)
        if verb and content[-1] == raw[-1]:
            content = content[:-1]  # the particle is part of the whole verb (as in the index, lexical.py)
        # Each position holds the stems it may stand for, with their weights.
        slots: list[list[tuple[str, float]]] = []
        unknown = 0
        for i, w in enumerate(content):
            s = stem(w, lang)
            known = w in self.words or s in self.stems
            if verb and verb[0] == i:  # a split verb stands for the whole verb (and for itself if known)
                slots.append([(verb[1], 1.0)] + ([(s, 1.0)] if known else []))
                continue
            if known:
                slots.append([(s, 1.0)])
                continue
            parts = self._split_compound(w)
            if parts:
                for p in parts:
                    slots.append([(stem(p, lang), SPLIT_WEIGHT)])
                continue
            fixes = self.spell.corrections(w) if self.spell else ()
            if fixes:
                share = CORRECTED_WEIGHT / len(fixes)
                slots.append([(stem(f, lang), share if d else 1.0 / len(fixes)) for f, d in fixes])
                continue
            unknown += 1
            slots.append([])
        weights: dict[str, float] = {}
        for slot in slots:
            for s, wt in slot:
                weights[s] = weights.get(s, 0.0) + wt
        for a, b in itertools.pairwise(slots):
            for sa, wa in a:
                for sb, wb in b:
                    key = sa + BIGRAM_SEPARATOR + sb
                    weights[key] = weights.get(key, 0.0) + min(wa, wb)
        return QueryTerms(weights, unknown, content)

    def _separable_verb(self, raw: list[str], content: list[str]) -> tuple[int, str] | None:
        """(position in `content`, stem of the whole verb) of a verb split by the input, as whole_verb()."""
        particle = trailing_particle(raw, self.language)
        if particle is None:
            return None
        before = content[:-1] if content and content[-1] == particle else content
        return whole_verb(particle, before, self.stems, self.language)

    def _join_pairs(self, words: list[str]) -> list[str]:
        """Join two adjacent words the index knows as one ("porte monnaie" -> "portemonnaie")."""
        if len(words) < 2:
            return words
        out: list[str] = []
        i = 0
        while i < len(words):
            if i + 1 < len(words):
                joined = words[i] + words[i + 1]
                if joined in self.words and (words[i] not in self.words or words[i + 1] not in self.words):
                    out.append(joined)
                    i += 2
                    continue
            out.append(words[i])
            i += 1
        return out

    def _split_compound(self, word: str) -> list[str] | None:
        """Split an unknown long word into two known ones, allowing Dutch linking letters (s, e, en)."""
        if len(word) < 7:
            return None
        for i in range(3, len(word) - 2):
            head, tail = word[:i], word[i:]
            if tail not in self.words or len(tail) < 3:
                continue
            if head in self.words:
                return [head, tail]
            for link in ("s", "e", "en"):
                if head.endswith(link) and head[: -len(link)] in self.words and len(head) - len(link) >= 3:
                    return [head[: -len(link)], tail]
        return None
