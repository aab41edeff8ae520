"""Lexical index: TF-IDF over stems and stem bigrams, cosine of an input to every formulation variant."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .analyse import (
    BIGRAM_SEPARATOR,
    SEPARABLE_PARTICLES,
    QueryAnalyser,
    QueryTerms,
    index_terms,
    split_verb,
    whole_verb,
)

# Bigrams say more than single words ("card declined" vs "card" + "declined" anywhere) but are
# rarer, so their TF-IDF weight is scaled down to keep single-word matches meaningful.
BIGRAM_FACTOR = 0.5


class LexicalIndex:
    """Inverted index over rows (formulation variants); `scores(query)` gives each row's cosine in 0..1."""

    def __init__(self, texts: list[str], language: str, spelling: bool = True, row_item: np.ndarray | None = None):
        self.language = language
        self.n_rows = len(texts)
        words: set[str] = set()
        term_id: dict[str, int] = {}
        flat_terms: list[int] = []
        flat_rows: list[int] = []
        flat_tf: list[int] = []
        split: list[tuple[int, int, int, tuple[str, tuple[str, ...]]]] = []  # rows that split a verb
        rejoins = language[:2] in SEPARABLE_PARTICLES
        for row, text in enumerate(texts):
            w, terms = index_terms(text, language)
            words.update(w)
            start = len(flat_terms)
            for t, c in Counter(terms).items():
                flat_terms.append(term_id.setdefault(t, len(term_id)))
                flat_rows.append(row)
                flat_tf.append(c)
            verb = rejoins and split_verb(text, language)
            if verb:
                split.append((row, start, len(flat_terms), verb))
        if split:
            _rejoin_verbs(split, term_id, flat_terms, flat_rows, flat_tf, language)
        terms_list = list(term_id)
        n = max(self.n_rows, 1)
        tid = np.asarray(flat_terms, dtype=np.int64)
        rows = np.asarray(flat_rows, dtype=np.int64)
        df = np.bincount(tid, minlength=len(terms_list)).astype(np.float64)
        idf = np.log1p(n / np.maximum(df, 1))
        # Terms by id: their IDF (bigram factor included) and postings are arrays indexed by a term's id, not
        # objects per term (two array views and a tuple per term cost 12 MiB at 15,000 formulations).
        self.term_id = term_id
        # An unseen word weighs as much as the rarest known one: it is evidence against every row.
        self.unknown_idf = math.log(1.0 + n)
        factor = np.array([BIGRAM_FACTOR if BIGRAM_SEPARATOR in t else 1.0 for t in terms_list])
        self.term_weight = idf * factor
        weight = (1.0 + np.log(np.asarray(flat_tf, dtype=np.float64))) * idf[tid] * factor[tid]
        row_norm = np.sqrt(np.bincount(rows, weights=weight * weight, minlength=self.n_rows))
        vals = weight / np.maximum(row_norm[rows], 1e-12)
        self.postings = Postings(len(terms_list), tid, rows, vals)
        # Item centroids: the sum of an item's unit row vectors, per term, normalised.
        items_of_rows = row_item.astype(np.int64) if row_item is not None else np.arange(self.n_rows)
        self.n_items = int(items_of_rows.max()) + 1 if len(items_of_rows) else 0
        n_items = max(self.n_items, 1)
        keys, inverse = np.unique(tid * n_items + items_of_rows[rows], return_inverse=True)
        sums = np.bincount(inverse, weights=vals, minlength=len(keys))
        key_term, key_item = keys // n_items, keys % n_items
        item_norm = np.sqrt(np.bincount(key_item, weights=sums * sums, minlength=n_items))
        item_vals = sums / np.maximum(item_norm[key_item], 1e-12)
        self.item_postings = Postings(len(terms_list), key_term, key_item, item_vals)
        stems = {t for t in terms_list if BIGRAM_SEPARATOR not in t}
        self.analyser = QueryAnalyser(language, words, stems, spelling=spelling)

    def _unknown_weight(self, term: str, tf: float) -> float:
        w = tf * self.unknown_idf
        return w * BIGRAM_FACTOR if BIGRAM_SEPARATOR in term else w

    def analyse(self, text: str) -> QueryTerms:
        return self.analyser.analyse(text)

    def scores(self, query: QueryTerms) -> tuple[np.ndarray, np.ndarray]:
        """Cosine between the input and every row, and between the input and every item centroid (float32, 0..1)."""
        out = np.zeros(self.n_rows, dtype=np.float32)
        items = np.zeros(self.n_items, dtype=np.float32)
        weights: dict[int, float] = {}
        missing = 0.0
        for t, wt in query.weights.items():
            known = self.term_id.get(t)
            if known is None:
                missing += self._unknown_weight(t, wt) ** 2
            else:
                weights[known] = wt * float(self.term_weight[known])
        norm2 = sum(v * v for v in weights.values()) + missing + query.unknown * self.unknown_idf**2
        if not weights or norm2 <= 0:
            return out, items
        inv = 1.0 / math.sqrt(norm2)
        for t, v in weights.items():
            rows, vals = self.postings.of(t)
            out[rows] += vals * np.float32(v * inv)
            ids, ivals = self.item_postings.of(t)
            items[ids] += ivals * np.float32(v * inv)
        np.clip(out, 0.0, 1.0, out=out)
        np.clip(items, 0.0, 1.0, out=items)
        return out, items


def _rejoin_verbs(split, term_id: dict[str, int], flat_terms, flat_rows, flat_tf, language: str) -> None:
    """A row that splits a verb the other formulations write whole ("Hoe vraag ik een paspoort aan?" beside
    "Paspoort aanvragen") has the whole verb as a term, in place of its particle: the particle is part of it."""
    stems = {t for t in term_id if BIGRAM_SEPARATOR not in t}
    for row, start, end, (particle, before) in split:
        whole = whole_verb(particle, before, stems, language)
        if whole is None:
            continue
        own = flat_terms[start:end]
        verb = term_id[whole[1]]
        if verb in own:
            continue
        at = own.index(term_id[particle]) if term_id.get(particle) in own else -1
        if at >= 0:
            flat_terms[start + at], flat_tf[start + at] = verb, 1
        else:  # a particle that is a stop word ("door", "op") is no term
            flat_terms.append(verb)
            flat_rows.append(row)
            flat_tf.append(1)


class Postings:
    """Per-term (ids, values), compressed: term t's entries are ids[bounds[t]:bounds[t + 1]] (int32) and the
    same slice of values (float32)."""

    __slots__ = ("bounds", "ids", "values")

    def __init__(self, n_terms: int, tid: np.ndarray, ids: np.ndarray, values: np.ndarray):
        order = np.lexsort((ids, tid))
        tid = tid[order]
        self.ids = ids[order].astype(np.int32)
        self.values = values[order].astype(np.float32)
        self.bounds = np.searchsorted(tid, np.arange(n_terms + 1))

    def of(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = self.bounds[term], self.bounds[term + 1]
        return self.ids[start:end], self.values[start:end]
