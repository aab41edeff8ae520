"""Export → import into a fresh bot → export again gives the same intents, examples and synonyms (the
same file, byte for byte), for the demo bot and for the bot whose knowledge trips YAML and Rasa."""

import pytest

from knowledge.models import Formulation, KnowledgeItem, MatchingGroup

from . import rasa_nlu
from .conftest import export, import_body


@pytest.mark.parametrize("which", ["demo_bot", "tricky_bot"])
def test_export_import_export_gives_the_same_training_data(client, request, personas, fresh_bot, which):
    bot = request.getfixturevalue(which)
    for language in ("fr", "en"):
        first = export(client, bot, personas.alice, language)
        response = import_body(client, fresh_bot, personas.alice, first, language)
        assert response.status_code == 200, response.content
        again = export(client, fresh_bot, personas.alice, language)
        assert rasa_nlu.read(again) == rasa_nlu.read(first)
        assert again == first


def test_the_fresh_bot_holds_the_data_as_knowledge(client, demo_bot, personas, fresh_bot):
    text = export(client, demo_bot, personas.alice, "fr")
    intents, synonyms = rasa_nlu.read(text)
    report = import_body(client, fresh_bot, personas.alice, text, "fr").json()
    assert report["intents"] == {"created": len(intents), "updated": 0, "unchanged": 0}
    assert report["synonyms"] == {"created": len(synonyms), "updated": 0, "unchanged": 0}
    assert report["examples"] == {"added": sum(map(len, intents.values())), "removed": 0}
    # No answers in NLU data: every item is a draft whose answer tells the editor what to write.
    assert report["draftsWithPlaceholder"] == len(intents)
    items = KnowledgeItem.objects.filter(bot=fresh_bot)
    assert items.count() == len(intents) and set(items.values_list("status", flat=True)) == {"draft"}
    first = items.order_by("position").first()
    assert "Imported from Rasa" in first.answers.get().text and first.external_intent.name == next(iter(intents))
    assert Formulation.objects.filter(item__bot=fresh_bot, language="fr").count() == report["examples"]["added"]
    assert dict(MatchingGroup.objects.filter(bot=fresh_bot).values_list("name", "members")) == synonyms


def test_a_bot_takes_back_its_own_export_as_it_is(client, tricky_bot, personas):
    """Re-importing an export into its own bot changes nothing: `{carte}` formulations stay references."""
    text = export(client, tricky_bot, personas.alice, "fr")
    before = sorted(Formulation.objects.filter(item__bot=tricky_bot).values_list("pk", "text"))
    tricky_bot.refresh_from_db()
    version = tricky_bot.knowledge_version
    report = import_body(client, tricky_bot, personas.alice, text, "fr").json()
    assert report["intents"]["created"] == report["intents"]["updated"] == 0
    assert report["examples"] == {"added": 0, "removed": 0}
    # Groups come back flattened: `carte` lists the members of `carte de paiement` itself now, and `boucle`
    # loses its reference to itself.
    assert report["synonyms"]["updated"] == 2 and report["synonyms"]["created"] == 0
    assert sorted(Formulation.objects.filter(item__bot=tricky_bot).values_list("pk", "text")) == before
    tricky_bot.refresh_from_db()
    assert tricky_bot.knowledge_version != version  # the groups did change
    assert export(client, tricky_bot, personas.alice, "fr") == text
