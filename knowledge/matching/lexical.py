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

    def __init__(self, texts: list[str], language: str, spelling: bool = True, row_item: np.ndarray | None = None):
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
        # Item centroids: the sum of an item's unit row vectors, per term (normalised below).
        centroid: dict[tuple[int, str], float] = {}
        for row, terms in enumerate(row_terms):
            weights = {t: self._weight(t, 1.0 + math.log(c)) for t, c in terms.items()}
            norm = math.sqrt(sum(v * v for v in weights.values())) or 1.0
            item = int(row_item[row]) if row_item is not None else row
            for t, v in weights.items():
                rows, vals = postings.setdefault(t, ([], []))
                rows.append(row)
                vals.append(v / norm)
                centroid[(item, t)] = centroid.get((item, t), 0.0) + v / norm
        self.postings = _arrays(postings)
        self.n_items = int(row_item.max()) + 1 if row_item is not None and len(row_item) else self.n_rows
        item_norm2 = [0.0] * self.n_items
        for (item, _), v in centroid.items():
            item_norm2[item] += v * v
        item_postings: dict[str, tuple[list[int], list[float]]] = {}
        for (item, t), v in centroid.items():
            items, vals = item_postings.setdefault(t, ([], []))
            items.append(item)
            vals.append(v / math.sqrt(item_norm2[item]))
        self.item_postings = _arrays(item_postings)
        stems = {t for t in df if BIGRAM_SEPARATOR not in t}
        self.analyser = QueryAnalyser(language, words, stems, spelling=spelling)

    def _weight(self, term: str, tf: float) -> float:
        w = tf * self.idf.get(term, self.unknown_idf)
        return w * BIGRAM_FACTOR if BIGRAM_SEPARATOR in term else w

    def analyse(self, text: str) -> QueryTerms:
        return self.analyser.analyse(text)

    def scores(self, query: QueryTerms) -> tuple[np.ndarray, np.ndarray]:
        """Cosine between the input and every row, and between the input and every item centroid (float32, 0..1)."""
        out = np.zeros(self.n_rows, dtype=np.float32)
        items = np.zeros(self.n_items, dtype=np.float32)
        weights = {t: self._weight(t, wt) for t, wt in query.weights.items() if t in self.postings}
        missing = sum(self._weight(t, wt) ** 2 for t, wt in query.weights.items() if t not in self.postings)
        norm2 = sum(v * v for v in weights.values()) + missing + query.unknown * self.unknown_idf**2
        if not weights or norm2 <= 0:
            return out, items
        inv = 1.0 / math.sqrt(norm2)
        for t, v in weights.items():
            rows, vals = self.postings[t]
            out[rows] += vals * np.float32(v * inv)
            ids, ivals = self.item_postings[t]
            items[ids] += ivals * np.float32(v * inv)
        np.clip(out, 0.0, 1.0, out=out)
        np.clip(items, 0.0, 1.0, out=items)
        return out, items


def _arrays(postings: dict[str, tuple[list[int], list[float]]]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {t: (np.asarray(r, dtype=np.int32), np.asarray(v, dtype=np.float32)) for t, (r, v) in postings.items()}
