"""The per-process memory budget of matching indexes (knowledge/vectors/budget.py): beyond it the least
recently used bots' indexes are dropped, and rebuilt from their stored vectors at their next talk."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotLanguage, Space
from knowledge import snapshot
from knowledge.models import Answer, Formulation, KnowledgeItem
from knowledge.vectors import budget


def small_bot(name: str, questions: list[str]) -> Bot:
    bot = Bot.objects.create(name=name, default_language="fr")
    BotLanguage.objects.create(bot=bot, code="fr")
    space = Space.objects.create(bot=bot, name="Defaut", is_default=True)
    for position, question in enumerate(questions):
        item = KnowledgeItem.objects.create(bot=bot, kind="question", status="published", position=position)
        Formulation.objects.create(item=item, language="fr", text=question, position=0)
        Answer.objects.create(item=item, language="fr", space=space, text=f"Réponse à « {question} »")
    bot.refresh_from_db()
    return bot


@pytest.fixture
def bots(db, settings):
    settings.MATCHING_EMBEDDINGS = True
    snapshot._cache.clear()
    first = small_bot("Banque", ["Comment bloquer ma carte ?", "Quels sont vos horaires ?"])
    second = small_bot("Assurance", ["Comment déclarer un sinistre ?", "Où envoyer ma facture ?"])
    yield first, second
    snapshot._cache.clear()


def index(bot):
    bot.refresh_from_db()
    return snapshot.snapshot_for(bot).matcher("fr")


def test_indexes_within_the_budget_stay(bots, settings):
    settings.MATCHING_MEMORY_MB = 1024
    first, second = bots
    kept = index(first)
    index(second)
    assert index(first) is kept
    usage = budget.usage(snapshot._cache.values())
    assert usage["indexes"] == 2 and 0 < usage["usedMB"] < 1024


def test_the_least_recently_used_index_is_dropped_then_rebuilt_from_stored_vectors(bots, settings):
    settings.MATCHING_MEMORY_MB = 0  # room for the index in use only
    first, second = bots
    built = index(first)
    assert built.config.use_embeddings
    # A small bot's vectors are computed in its first talk, and stored.
    assert Formulation.objects.filter(item__bot=first, vector__isnull=True).count() == 0
    index(second)
    # The first bot was used least recently: its index is gone, the second's stays.
    assert snapshot._cache[first.pk].index_bytes() == 0
    assert snapshot._cache[second.pk].index_bytes() > 0

    # Its next talk rebuilds it from the stored vectors: nothing computed, nothing written.
    with CaptureQueriesContext(connection) as queries:
        rebuilt = index(first)
    assert rebuilt is not built and rebuilt.config.use_embeddings
    assert rebuilt.computed_vectors == 0
    assert not [q for q in queries if q["sql"].startswith("UPDATE")]
    assert rebuilt.rank("bloquer ma carte")[0].item_id == built.rank("bloquer ma carte")[0].item_id
    # And now the second bot's index made room.
    assert snapshot._cache[second.pk].index_bytes() == 0


def test_an_index_size_counts_its_vectors_and_texts(bots):
    built = index(bots[0])
    size = budget.index_bytes(built)
    assert size >= built.vectors.nbytes + sum(len(text) for text in built.row_text)
    # Settings and shared word lists are not the index's own: a small bot's index stays small.
    assert size < 2 * 1024 * 1024
