"""The grouping itself (dialogs/learning/grouping.py): leader clustering on known vectors, the spelling
representation that survives typos and missing accents, and, where the sentence encoder is installed, the
demo bot's page grouped with the matcher's vectors and its closest items ranked from them."""

import numpy as np
import pytest

from dialogs.learning import grouping, page
from knowledge.matching import embeddings_available

from .conftest import seed_inputs


def test_the_most_asked_input_leads_and_each_input_joins_its_closest_leader():
    a, b, c = np.eye(3, dtype=np.float32)
    rows = grouping.unit(np.stack([a, a + 0.2 * b, b, b + 0.1 * a, c]))
    # In the order given (most asked first), rows 0 and 2 lead; 1 and 3 join the leader they are closest to.
    assert grouping.cluster(rows, [0, 1, 2, 3, 4], threshold=0.9) == [0, 0, 2, 2, 4]
    assert grouping.cluster(rows, [4, 2, 0, 1, 3], threshold=0.9) == [0, 0, 2, 2, 4]
    assert grouping.cluster(rows, [0, 1, 2, 3, 4], threshold=0.0) == [0, 0, 0, 0, 0]
    assert grouping.cluster(np.zeros((0, 3), dtype=np.float32), [], 0.5) == []


def test_spelling_keeps_typos_and_missing_accents_together():
    texts = ["Où est mon colis ?", "ou est mon coli", "je veux résilier mon contrat", "resilier contrat svp"]
    rows = grouping.representation(texts, "fr", None)
    leaders = grouping.cluster(rows, [0, 1, 2, 3], grouping.SIMILAR["lexical"])
    assert leaders == [0, 0, 2, 2]
    # Nothing to read (stop words only, punctuation) gives a zero row, never NaN.
    assert np.isfinite(grouping.representation(["?", "le la les"], "fr", None)).all()


@pytest.mark.skipif(not embeddings_available(), reason="the sentence encoder package is not installed")
@pytest.mark.django_db
def test_with_sentence_vectors_the_page_groups_with_the_matchers_vectors(demo_bot, settings, monkeypatch):
    settings.MATCHING_EMBEDDINGS = True
    seed_inputs()
    encoded = []
    original = grouping.embeddings.encode
    monkeypatch.setattr(
        grouping.embeddings, "encode", lambda texts, *a, **k: encoded.append(len(texts)) or original(texts, *a, **k)
    )
    grouping._cache.clear()
    learning = page.build(demo_bot)
    assert learning.mode == {"fr": "embeddings"}
    insurance = next(g for g in learning.groups if any(m.key == "assurance vie" for m in g.members))
    assert {m.key for m in insurance.members} >= {"assurance vie", "je cherche une assurance vie pour mes enfants"}
    # Every shown group has its closest items; a leader's are ranked from the vector the grouping computed.
    assert all(g.suggestions for g in learning.shown)
    assert sum(encoded) == sum(len(g.members) for g in learning.groups)  # each distinct input encoded once
    # Built again (an action on the page): the inputs' vectors are reused.
    encoded.clear()
    page.build(demo_bot)
    assert sum(encoded) == 0
