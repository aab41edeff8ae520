"""Lexical index: TF-IDF over stems and stem bigrams, cosine of an input to every formulation variant."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .analyse import BIGRAM_SEPARATOR, QueryAnalyser, QueryTerms, index_terms

# Bigrams say more than single words ("card declined" vs "card" + "declined" anywhere) but are
# rarer, so their TF-IDF weight is scaled down to keep single-word matches meaningful.
BIGRAM_FACTOR = 0.5


class LexicalIndex:
    """Inverted index over rows (formulation variants); `scores(query)` gives each row's cosine in 0..1."""

    def __init__(self, texts: list[str], language: str, spelling: bool = True):
        self.language = language
        self.n_rows = len(texts)
        words: set[str] = set()
        row_terms: list[Counter[str]] = []
        for text in texts:
            w, terms = index_terms(text, language)
            words.update(w)
            row_terms.append(Counter(terms))
        df: Counter[str] = Counter()
        for terms in row_terms:
            df.update(terms.keys())
        n = max(self.n_rows, 1)
        self.idf = {t: math.log(1.0 + n / c) for t, c in df.items()}
        # An unseen word weighs as much as the rarest known one: it is evidence against every row.
        self.unknown_idf = math.log(1.0 + n)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for row, terms in enumerate(row_terms):
            weights = {t: self._weight(t, 1.0 + math.log(c)) for t, c in terms.items()}
            norm = math.sqrt(sum(v * v for v in weights.values())) or 1.0
            for t, v in weights.items():
                rows, vals = postings.setdefault(t, ([], []))
                rows.append(row)
                vals.append(v / norm)
        self.postings = {
            t: (np.asarray(r, dtype=np.int32), np.asarray(v, dtype=np.float32))
            for t, (r, v) in postings.items()
        }
        stems = {t for t in df if BIGRAM_SEPARATOR not in t}
        self.analyser = QueryAnalyser(language, words, stems, spelling=spelling)

    def _weight(self, term: str, tf: float) -> float:
        w = tf * self.idf.get(term, self.unknown_idf)
        return w * BIGRAM_FACTOR if BIGRAM_SEPARATOR in term else w

    def analyse(self, text: str) -> QueryTerms:
        return self.analyser.analyse(text)

    def scores(self, query: QueryTerms) -> np.ndarray:
        """Cosine between the input and every row (float32, 0..1)."""
        out = np.zeros(self.n_rows, dtype=np.float32)
        weights = {
            t: self._weight(t, wt)
            for t, wt in query.weights.items()
            if t in self.postings
        }
        missing = sum(
            self._weight(t, wt) ** 2
            for t, wt in query.weights.items()
            if t not in self.postings
        )
        norm2 = (
            sum(v * v for v in weights.values())
            + missing
            + query.unknown * self.unknown_idf**2
        )
        if not weights or norm2 <= 0:
            return out
        inv = 1.0 / math.sqrt(norm2)
        for t, v in weights.items():
            rows, vals = self.postings[t]
            out[rows] += vals * np.float32(v * inv)
        np.clip(out, 0.0, 1.0, out=out)
        return out
