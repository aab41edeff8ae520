"""What a matching index holds on to: one string per distinct term, and the build's freed heap given back to
the system once a large index is final (knowledge/matching/analyse.py, lexical.py, heap.py)."""

import pytest

from knowledge.matching import heap
from knowledge.matching.analyse import index_terms
from knowledge.matching.lexical import LexicalIndex
from knowledge.matching.matcher import Matcher, MatcherConfig
from knowledge.matching.types import FormulationEntry

TOPICS = ["carte", "virement", "chequier", "pret", "epargne", "assurance", "adresse", "code", "agence", "compte"]


def entries(count: int) -> list[FormulationEntry]:
    return [
        FormulationEntry(id=n, item_id=n // 20, text=f"Comment changer mon {TOPICS[n % 10]} numero {n} ?")
        for n in range(count)
    ]


def test_formulations_share_one_string_per_term():
    first_words, first_terms = index_terms("Comment bloquer ma carte bancaire ?", "fr")
    second_words, second_terms = index_terms("Ma carte bancaire est perdue", "fr")
    shared = set(first_terms) & set(second_terms)
    assert shared, (first_terms, second_terms)  # the stem of "carte", and the bigram "carte bancaire"
    for term in shared:
        assert first_terms[first_terms.index(term)] is second_terms[second_terms.index(term)]
    assert first_words[first_words.index("carte")] is second_words[second_words.index("carte")]


def test_the_compact_postings_score_as_the_terms_weigh():
    index = LexicalIndex(["bloquer ma carte", "horaires de l'agence", "carte perdue"], "fr")
    rows, items = index.scores(index.analyse("carte"))
    assert rows[0] > 0 and rows[2] > 0 and rows[1] == 0
    assert (items > 0).tolist() == [True, False, True]  # without items given, each row is its own item
    # Both texts hold "carte" once beside one other content word as rare: the same cosine.
    assert rows[0] == pytest.approx(rows[2])
    rows, _ = index.scores(index.analyse("agence horaires"))
    assert rows.argmax() == 1 and rows[0] == 0
    rows, _ = index.scores(index.analyse("zzzz"))
    assert not rows.any()


@pytest.fixture
def trims(monkeypatch):
    calls = []
    monkeypatch.setattr(heap, "_malloc_trim", lambda pad: calls.append(pad) or 1)
    return calls


def test_a_large_index_gives_the_freed_heap_back_once_final(trims):
    matcher = Matcher.build("fr", entries(heap.LARGE_INDEX_ROWS), config=MatcherConfig(use_embeddings=False))
    assert matcher.wait_ready(0)
    assert trims == [0]


def test_a_small_index_does_not_ask_the_allocator(trims):
    matcher = Matcher.build("fr", entries(40), config=MatcherConfig(use_embeddings=False))
    assert matcher.wait_ready(0)
    assert trims == []
