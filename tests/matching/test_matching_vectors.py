"""Vectors: stored ones are reused by Matcher.build, never recomputed; both models joined in order; large products."""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from knowledge.matching import (
    FormulationEntry,
    Matcher,
    MatcherConfig,
    embed_formulations,
    workers,
)
from knowledge.matching import embeddings as emb

TEXTS = [
    "Comment activer ma carte ?",
    "Quel est le solde de mon compte ?",
    "How do I change my address?",
]


def test_embed_formulations_returns_one_stored_vector_per_text():
    vecs = embed_formulations(TEXTS, "fr")
    assert vecs is not None and len(vecs) == 3
    assert all(isinstance(v, bytes) and emb.from_bytes(v, "fr") is not None for v in vecs)


def test_english_vectors_add_the_english_model_when_installed():
    fr = emb.from_bytes(embed_formulations(["Hello"], "fr")[0], "fr")
    en = emb.from_bytes(embed_formulations(["Hello"], "en")[0], "en")
    assert fr.shape == (emb.USE_DIM,)
    assert en.shape == (emb.USE_DIM + emb.MINILM_DIM,)
    # a French (USE-only) vector is not enough for an English index: it would be recomputed
    assert emb.from_bytes(embed_formulations(["Hello"], "fr")[0], "en") is None
    # an English vector still serves a French index (its USE part)
    assert emb.from_bytes(embed_formulations(["Hello"], "en")[0], "fr").shape == (emb.USE_DIM,)


def test_embed_formulations_is_none_when_switched_off(monkeypatch):
    monkeypatch.setenv("MATCHING_EMBEDDINGS", "off")
    assert embed_formulations(TEXTS, "fr") is None
    assert MatcherConfig().use_embeddings is False


def test_build_reuses_stored_vectors(monkeypatch):
    vecs = embed_formulations(TEXTS, "fr")
    entries = [FormulationEntry(i, i * 10, t, v) for i, (t, v) in enumerate(zip(TEXTS, vecs, strict=True))]
    calls = []
    real = emb.encode

    def spy(texts, language="fr", with_minilm=True):
        calls.append(list(texts))
        return real(texts, language, with_minilm)

    monkeypatch.setattr(emb, "encode", spy)
    m = Matcher.build("fr", entries, config=MatcherConfig(use_embeddings=True))
    assert m.computed_vectors == 0
    assert calls == []  # nothing embedded at build time
    m.match("activer ma carte")
    assert calls == [["activer ma carte"]]  # only the input, at query time


def test_build_computes_only_missing_or_foreign_vectors(monkeypatch):
    vecs = embed_formulations(TEXTS, "fr")
    entries = [
        FormulationEntry(0, 0, TEXTS[0], vecs[0]),
        FormulationEntry(1, 10, TEXTS[1], None),
        FormulationEntry(2, 20, TEXTS[2], b"not a vector of this model"),
    ]
    calls = []
    real = emb.encode
    monkeypatch.setattr(
        emb,
        "encode",
        lambda texts, language="fr", with_minilm=True: calls.append(list(texts)) or real(texts, language, with_minilm),
    )
    m = Matcher.build("fr", entries, config=MatcherConfig(use_embeddings=True))
    assert m.computed_vectors == 2
    assert calls == [[TEXTS[1], TEXTS[2]]]
    assert m.match("How do I change my address?").best.item_id == 20


def test_lexical_only_ignores_vectors():
    m = Matcher.build(
        "fr",
        [FormulationEntry(0, 0, TEXTS[0], b"x")],
        config=MatcherConfig(use_embeddings=False),
    )
    assert m.vectors is None
    assert m.match("comment activer ma carte").best.item_id == 0


def test_english_vectors_join_both_models_in_order_from_many_threads():
    """MiniLM runs on another thread beside USE: the joined rows must stay each text's own, in order."""
    assert emb.uses_minilm("en"), "the English MiniLM is part of the default configuration (requirements.txt)"
    texts = ["What is my balance?", "Activate my new card", "I lost my card", "Change my address"]
    use = emb.encode(texts, "en", with_minilm=False)
    minilm = emb._get_minilm().encode([emb.model_text(t) for t in texts])

    def as_a_query(text):
        # Inside a query: alone, MiniLM runs on a side thread; beside other queries, in this thread.
        with workers.query():
            return emb.encode([text], "en")[0]

    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(as_a_query, texts * 5))
    for i, v in enumerate(together):
        assert v.shape == (emb.USE_DIM + emb.MINILM_DIM,)
        assert np.allclose(v[: emb.USE_DIM], use[i % 4], atol=1e-5)
        assert np.allclose(v[emb.USE_DIM :], minilm[i % 4], atol=1e-5)


def test_large_products_are_split_over_two_threads_and_exact(monkeypatch):
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    side = []
    real_submit = workers.pool().submit
    monkeypatch.setattr(workers.pool(), "submit", lambda fn, *a: side.append(a[0].shape) or real_submit(fn, *a))
    rng = np.random.default_rng(0)
    matrix = rng.random((workers.SPLIT_ROWS * 2 + 3, 64), dtype=np.float32)
    vector = rng.random(64, dtype=np.float32)
    assert np.allclose(workers.matvec(matrix, vector), matrix @ vector, rtol=1e-5)
    assert side == [(workers.SPLIT_ROWS + 2, 64)]  # the lower half went to a side thread
    assert np.allclose(workers.matvec(matrix[:10], vector), matrix[:10] @ vector, rtol=1e-5)
    # A column slice (one model's part of the vectors) is split the same way.
    assert np.allclose(workers.matvec(matrix[:, 16:48], vector[16:48]), matrix[:, 16:48] @ vector[16:48], rtol=1e-5)
    assert len(side) == 2  # small products stay in the calling thread
    with workers.query(), workers.query():  # beside another query: no side thread
        assert np.allclose(workers.matvec(matrix, vector), matrix @ vector, rtol=1e-5)
    assert len(side) == 2


def test_a_process_with_the_models_runs_blas_on_one_thread():
    """Concurrent requests each take a core; OpenBLAS's spinning helper threads would slow the next one."""
    from threadpoolctl import threadpool_info

    emb.encode(["Quel est le solde de mon compte ?"], "fr")
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas and all(lib["num_threads"] == 1 for lib in blas)


def test_side_threads_serve_a_lone_query_only(monkeypatch):
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    assert workers.alone()
    with workers.query():
        assert workers.alone()
        with workers.query():
            assert not workers.alone()  # two queries: each keeps its work in its own thread
    assert workers.alone()
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 1)
    assert not workers.alone()


BULK = [
    f"How do I {verb} my {thing}?"
    for verb in ("change", "block", "renew", "close")
    for thing in (
        "card",
        "address",
        "account",
        "phone number",
        "password",
        "pin code",
        "statement",
        "limit",
        "direct debit",
        "standing order",
        "savings plan",
        "loan",
        "overdraft",
        "insurance",
        "email",
        "name",
        "beneficiary",
        "mandate",
    )
]


def test_many_english_texts_use_every_core_at_a_lower_priority(monkeypatch):
    """A vector job's chunk: MiniLM, the slow model, is split over the bulk threads (one part per core),
    which run below the requests' priority; the vectors are those of encoding the texts in one go."""
    monkeypatch.setattr(workers, "cores", lambda: 2)
    minilm = emb._get_minilm()
    ran_on = []
    real = type(minilm).encode

    def spy(self, texts, batch=64):
        thread = threading.current_thread()
        ran_on.append((thread.name, len(texts), os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
        return real(self, texts, batch)

    monkeypatch.setattr(type(minilm), "encode", spy)
    assert len(BULK) >= emb.BULK_TEXTS
    bulk = emb.encode(BULK, "en")
    assert [(name.startswith("matching-bulk"), size) for name, size, _ in ran_on] == [(True, 36), (True, 36)]
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert all(nice == max(here, workers.BACKGROUND_NICE) for *_, nice in ran_on)

    ran_on.clear()
    use = emb._unit(np.asarray(emb._get_use().encode([emb.model_text(t) for t in BULK]), dtype=np.float32))
    whole = np.hstack([use, real(minilm, [emb.model_text(t) for t in BULK])])
    assert bulk.shape == whole.shape == (len(BULK), emb.USE_DIM + emb.MINILM_DIM)
    # int8 activations are quantised per batch: another split gives nearly, not exactly, the same vectors.
    cosines = (bulk * whole).sum(1) / 2  # each model's part is a unit vector
    assert cosines.min() > 0.99


def test_a_few_texts_stay_on_the_request_threads(monkeypatch):
    monkeypatch.setattr(workers, "cores", lambda: 2)
    submitted = []
    monkeypatch.setattr(workers, "bulk_pool", lambda: submitted.append(1))
    assert emb.encode(BULK[: emb.BULK_TEXTS - 1], "en").shape[0] == emb.BULK_TEXTS - 1
    assert submitted == []
