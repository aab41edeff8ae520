"""A big bot's index build holds its vectors once: the LDA neither copies them nor holds float64 copies of
every item's mean, and the calibration's second index gets the bot's decoded vectors (no stored bytes to
decode again). Allocations are counted by tracemalloc, which numpy reports to: a count, not a timing."""

import tracemalloc

import numpy as np
import pytest

from knowledge.matching import embeddings
from knowledge.matching.matcher import Matcher, MatcherConfig
from knowledge.matching.scoring import LinearClassifier
from knowledge.matching.types import FormulationEntry


def peak_allocated(build) -> tuple[object, int]:
    """What `build()` returns and the most memory allocated at once while it ran."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        result = build()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak - start


def reference_lda(vectors, labels, n_items, column_scale, shrinkage=0.5, max_rows=3000):
    """The textbook fit on scaled vectors, one solve: what the LDA must compute."""
    x = vectors * column_scale
    mu = np.stack([x[labels == k].mean(axis=0) for k in range(n_items)])
    sample = np.random.default_rng(0).choice(len(labels), max_rows, replace=False)
    centred = x[sample] - mu[labels[sample]]
    cov = centred.T @ centred / max_rows
    d = x.shape[1]
    cov = (1 - shrinkage) * cov + shrinkage * np.trace(cov) / d * np.eye(d)
    w = np.linalg.solve(cov.astype(np.float64), mu.T.astype(np.float64))
    return w * column_scale[:, None], -0.5 * np.einsum("dk,kd->k", w, mu)


def test_the_lda_fits_without_copying_the_vectors_and_gives_the_textbook_classifier():
    rng = np.random.default_rng(3)
    n, d, items = 48_000, 512, 2_000
    vectors = rng.standard_normal((n, d), dtype=np.float32)
    labels = np.sort(rng.integers(0, items, n))  # grouped by item, as the matcher's rows come
    labels[:items] = np.arange(items)
    labels.sort()
    scale = np.ones(d, dtype=np.float32)
    scale[256:] = 0.6  # a second model's part weighed down, as the fusion does for MiniLM

    lda, peak = peak_allocated(lambda: LinearClassifier(vectors, labels, items, column_scale=scale))

    # Before: a scaled copy and a reordered copy of the vectors (2 × 98 MB), then float64 means (3 × 8 MB);
    # now the means, the classifier and a float64 slice of 1,024 items (4 MB each), and the covariance's sample.
    assert peak < 0.35 * vectors.nbytes, f"the LDA allocated {peak / 1e6:.0f} MB for {vectors.nbytes / 1e6:.0f} MB"
    w, b = reference_lda(vectors, labels, items, scale)
    questions = rng.standard_normal((50, d), dtype=np.float32)
    expected = questions @ w + b
    assert np.allclose(lda.logits(questions), expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
    assert (lda.logits(questions).argmax(axis=1) == expected.argmax(axis=1)).all()


def test_rows_in_any_order_give_the_same_classifier_as_rows_grouped_by_item():
    rng = np.random.default_rng(4)
    vectors = rng.standard_normal((2_000, 64), dtype=np.float32)
    labels = np.sort(np.r_[np.arange(300), rng.integers(0, 300, 1_700)])
    shuffled = rng.permutation(len(labels))
    grouped = LinearClassifier(vectors, labels, 300, max_rows=10_000)
    mixed = LinearClassifier(vectors[shuffled], labels[shuffled], 300, max_rows=10_000)
    assert np.allclose(grouped.W, mixed.W, atol=1e-5) and np.allclose(grouped.b, mixed.b, atol=1e-5)


def test_the_calibrations_second_index_gets_the_bots_vectors_not_stored_bytes(monkeypatch):
    rng = np.random.default_rng(5)
    items, per = 40, 4
    vectors = rng.standard_normal((items * per, embeddings.USE_DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    entries = [
        FormulationEntry(id=i + 1, item_id=i // per + 1, text=f"mot{i // per} variante{i}", vector=None)
        for i in range(items * per)
    ]
    given = []
    built = Matcher.build

    def build(language, entries_, groups=(), config=None, vectors=None):
        shadow = built(language, entries_, groups, config, vectors=vectors)
        if config is not None and not config.calibrate:  # the calibration's second index
            given.append((vectors, entries_, shadow))
        return shadow

    monkeypatch.setattr(Matcher, "build", staticmethod(build))
    monkeypatch.setattr(embeddings, "available", lambda: True)
    monkeypatch.setattr(Matcher, "_encode", lambda self, texts: vectors[[int(t.split("variante")[1]) for t in texts]])
    m = built("fr", entries, (), MatcherConfig(english_model=False))
    m.wait_ready()

    assert m.calibrated is not None and given, "the bot was calibrated on a second index"
    for shadow_vectors, rest, shadow in given:
        assert all(e.vector is None for e in rest)  # no vector encoded to stored bytes for it
        assert shadow.vectors is shadow_vectors and shadow.computed_vectors == 0  # used as given, none encoded
        assert 0 < len(rest) < len(entries) and shadow_vectors.dtype == np.float32
        # Each row is its own formulation's vector, exactly (not a float16 round trip).
        own = vectors[[int(e.text.split("variante")[1]) for e in rest]]
        assert np.array_equal(shadow_vectors, own)


def test_vectors_that_do_not_fit_the_entries_are_refused_not_encoded_again(monkeypatch):
    monkeypatch.setattr(embeddings, "available", lambda: True)
    monkeypatch.setattr(Matcher, "_encode", lambda self, texts: pytest.fail("vectors encoded again"))
    entries = [FormulationEntry(id=i + 1, item_id=i // 2 + 1, text=f"mot{i}") for i in range(6)]
    config = MatcherConfig(use_embeddings=True, english_model=False, calibrate=False)
    with pytest.raises(ValueError, match="vectors of shape"):
        Matcher.build("fr", entries, (), config, vectors=np.zeros((5, embeddings.USE_DIM), dtype=np.float32))
