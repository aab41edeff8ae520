"""The mirror's status: never exported, exported and unchanged, changed by a knowledge edit that changes
the training data, unchanged by one that does not (an answer), up to date again after a new export."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from knowledge.models import Answer, Formulation, KnowledgeItem, MatchingGroup

from .conftest import export, status


def test_status_before_and_after_an_export_and_after_knowledge_changes(client, demo_bot, personas):
    before = status(client, demo_bot, personas.alice)
    assert set(before) == {"fr", "en"}
    assert before["fr"] == {"language": "fr", "exported": False, "exportedAt": None, "changedSinceExport": None}

    export(client, demo_bot, personas.bob, "fr")
    after = status(client, demo_bot, personas.alice)
    assert after["fr"]["exported"] is True and after["fr"]["changedSinceExport"] is False
    assert after["fr"]["exportedBy"] == personas.bob.login and after["fr"]["exportedAt"]
    assert after["fr"]["intents"] > 30 and after["fr"]["examples"] > after["fr"]["intents"]
    assert after["en"]["exported"] is False

    # An answer is not training data: the knowledge version moves, the mirror is still up to date.
    answer = Answer.objects.filter(item__bot=demo_bot, language="fr").first()
    answer.text += " (modifié)"
    answer.save()
    assert status(client, demo_bot, personas.alice)["fr"]["changedSinceExport"] is False

    # A new formulation is: French changed, English was never exported.
    item = KnowledgeItem.objects.filter(bot=demo_bot, formulations__language="fr").first()
    Formulation.objects.create(item=item, language="fr", text="une nouvelle façon de demander")
    changed = status(client, demo_bot, personas.alice)
    assert changed["fr"]["changedSinceExport"] is True and changed["en"]["changedSinceExport"] is None

    export(client, demo_bot, personas.alice, "fr")
    assert status(client, demo_bot, personas.alice)["fr"]["changedSinceExport"] is False

    # A matching group is training data for every language.
    export(client, demo_bot, personas.alice, "en")
    MatchingGroup.objects.create(bot=demo_bot, name="agence", members=["agence", "succursale"])
    both = status(client, demo_bot, personas.alice)
    assert both["fr"]["changedSinceExport"] is True and both["en"]["changedSinceExport"] is True


def test_one_language_and_the_cost_of_a_status_while_nothing_changed(client, demo_bot, personas):
    export(client, demo_bot, personas.alice, "en")
    url = f"/servlet/api/externalmatchers/rasa/status/{demo_bot.uuid}?language=en"
    client.get(url, **personas.alice.auth)  # the token's first use is recorded once
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **personas.alice.auth)
    assert [entry["language"] for entry in response.json()["languages"]] == ["en"]
    assert response.json()["languages"][0]["changedSinceExport"] is False
    # No export rebuilt while the knowledge version is the export's: token, bot, languages, version, mirror.
    statements = [query["sql"] for query in queries.captured_queries]
    assert not any("knowledge_formulation" in sql for sql in statements), statements
    assert len(statements) == 5, statements
