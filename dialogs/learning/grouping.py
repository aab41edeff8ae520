"""Groups similar inputs with the matcher's own representation of text (its sentence vectors) blended with
their spelling (character n-grams), or the spelling alone on a lexical-only matcher. No Django here."""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict

import numpy as np

from knowledge.matching import embeddings
from knowledge.matching.analyse import content_words

# Cosine from which two inputs are "the same question", per representation, measured on labelled visitor
# questions (bench/learning_groups.py, French, Dutch and English): about half the inputs put together ask the
# same thing, in groups several times smaller than the inputs (the grouping is a help for a person, who sees
# every example; merging two questions costs less than scattering one).
SIMILAR = {"embeddings": 0.40, "lexical": 0.35}


def mode_of(matcher) -> str:
    """ "embeddings" when the matcher holds sentence vectors, else "lexical"."""
    return "lexical" if matcher.vectors is None else "embeddings"


# Inputs' model vectors kept between builds of the page (float16, at most CACHE_SIZE: about 10 MB with
# USE): each action on the page rebuilds it, and encoding is most of its cost.
CACHE_SIZE = 10_000
_cache: OrderedDict[tuple[str, bool, str], np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def encode(matcher, texts: list[str]) -> np.ndarray:
    """The matcher's model vectors of `texts` as it encodes an input (USE, plus MiniLM for English when
    the matcher uses it): raw rows, as Matcher.components takes them. Vectors seen lately are reused."""
    both = matcher.n_parts == 2
    keys = [(matcher.language, both, matcher.model_input(text)) for text in texts]
    with _cache_lock:
        found = {key: _cache[key] for key in keys if key in _cache}
    missing = [key for key in dict.fromkeys(keys) if key not in found]
    if missing:
        computed = embeddings.encode([key[2] for key in missing], matcher.language, with_minilm=both)
        with _cache_lock:
            for key, vector in zip(missing, computed, strict=True):
                found[key] = _cache[key] = vector.astype(np.float16)
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    with _cache_lock:
        for key in found:
            if key in _cache:
                _cache.move_to_end(key)
    width = embeddings.USE_DIM + (embeddings.MINILM_DIM if both else 0)
    out = np.zeros((len(texts), width), dtype=np.float32)
    for i, key in enumerate(keys):
        out[i] = found[key]
    return out


def representation(texts: list[str], language: str, model_vectors: np.ndarray | None) -> np.ndarray:
    """Unit rows whose dot products are the inputs' similarities: the average of the sentence vectors'
    cosine and the spelling cosine when the matcher has vectors (as the matcher blends its model's and its
    lexical index's evidence), the spelling cosine alone on a lexical-only matcher."""
    spelling = unit(spelling_vectors(texts, language))
    if model_vectors is None:
        return spelling
    return unit(np.hstack([unit(model_vectors), spelling]))


def spelling_vectors(texts: list[str], language: str) -> np.ndarray:
    """TF-IDF over the character 3- and 4-grams of the inputs' content words (the matcher's normalisation
    and stop words). Visitors' typos and missing accents break stems, not most of a word's n-grams: on the
    French set, stems grouped 3 % of the pairs that belong together, n-grams 13 % at a better precision.
    The idf comes from the inputs themselves: misunderstood inputs are often about words the knowledge
    base lacks."""
    grams = [_grams(content_words(text, language)) for text in texts]
    vocabulary: dict[str, int] = {}
    for row in grams:
        for gram in row:
            vocabulary.setdefault(gram, len(vocabulary))
    out = np.zeros((len(texts), max(len(vocabulary), 1)), dtype=np.float32)
    if not vocabulary:
        return out
    df = np.zeros(len(vocabulary), dtype=np.float32)
    for row in grams:
        for gram in set(row):
            df[vocabulary[gram]] += 1
    idf = np.log1p(len(texts) / df)
    for i, row in enumerate(grams):
        for gram, tf in Counter(row).items():
            j = vocabulary[gram]
            out[i, j] = (1.0 + np.log(tf)) * idf[j]
    return out


def _grams(words: list[str]) -> list[str]:
    found = []
    for word in words:
        padded = f" {word} "
        for n in (3, 4):
            found.extend(padded[i : i + n] for i in range(max(len(padded) - n + 1, 1)))
    return found


def unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (rows / norms).astype(np.float32)


def cluster(vectors: np.ndarray, order: list[int], threshold: float) -> list[int]:
    """Leader clustering: in `order` (most asked first), an input not yet taken leads a group and takes
    every free input at least `threshold` similar to it; then each input joins its most similar leader.
    Returns each row's leader row. `vectors` are unit rows; cost: one rows x rows product."""
    n = len(vectors)
    if n == 0:
        return []
    similarity = vectors @ vectors.T
    leader = np.full(n, -1, dtype=np.int64)
    leaders: list[int] = []
    for i in order:
        if leader[i] >= 0:
            continue
        leaders.append(i)
        free = (leader < 0) & (similarity[i] >= threshold)
        free[i] = True
        leader[free] = i
    # A later leader may be closer to an input than the leader that took it first.
    columns = np.asarray(leaders, dtype=np.int64)
    best = columns[np.argmax(similarity[:, columns], axis=1)]
    is_leader = np.zeros(n, dtype=bool)
    is_leader[columns] = True
    return [int(i) if is_leader[i] else int(best[i]) for i in range(n)]
