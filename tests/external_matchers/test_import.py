"""Importing a Rasa NLU file: intents as knowledge items, synonyms as matching groups, responses as
answers; multipart or raw body; a re-import updates instead of duplicating; a report of what was done."""

from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.external.models import ExternalIntent
from knowledge.models import Answer, Formulation, KnowledgeItem, MatchingGroup

from .conftest import BASE, import_body

FIXTURE = Path(__file__).parent / "fixtures" / "tricky_nlu.yml"


def test_the_tricky_fixture_becomes_knowledge(client, fresh_bot, personas):
    report = import_body(client, fresh_bot, personas.bob, FIXTURE.read_bytes(), "fr").json()
    assert report["intents"] == {"created": 3, "updated": 0, "unchanged": 0}
    assert report["synonyms"] == {"created": 2, "updated": 0, "unchanged": 0}
    assert report["examples"] == {"added": 10, "removed": 0}
    assert {entry["section"] for entry in report["skipped"]} == {
        "regex: code_postal",
        "lookup: villes",
        "stories",
        "responses: utter_greet",  # only its first variation is kept
        "responses: utter_unknown_intent",
    }
    names = dict(ExternalIntent.objects.filter(bot=fresh_bot).values_list("name", "item_id"))
    assert set(names) == {"greet", "ask:taux", "faq/horaires"}

    greet = KnowledgeItem.objects.get(pk=names["greet"])
    # Both `greet` entries merged; entity annotations become their text.
    assert list(greet.formulations.values_list("text", flat=True)) == [
        "bonjour",
        "salut !",
        "Bonjour: je m'appelle Zoé",
        "coucou",
    ]
    # A response makes a published item with that answer (escaped HTML, line breaks kept).
    assert greet.status == "published" and greet.label == "greet"
    assert greet.answers.get().text == "Bonjour ! Que puis-je pour vous ?<br>À votre service."

    taux = KnowledgeItem.objects.get(pk=names["ask:taux"])
    assert list(taux.formulations.values_list("text", flat=True)) == [
        'Quel est le "taux" d\'un prêt immobilier ?',
        "- commence par un tiret",
        "'entre apostrophes'",
        "espaces en trop",
    ]
    assert taux.status == "draft" and "ask:taux" in taux.answers.get().text
    horaires = KnowledgeItem.objects.get(pk=names["faq/horaires"])
    assert list(horaires.formulations.values_list("text", flat=True)) == [
        "Quels sont vos horaires ?",
        "Ouvert le samedi : oui ?",
    ]
    assert dict(MatchingGroup.objects.filter(bot=fresh_bot).values_list("name", "members")) == {
        "prêt": ["crédit", "emprunt", "prêt immobilier"],
        "Taux: fixe": ["taux fixe", '"taux" fixe'],
    }


def test_a_second_import_of_the_same_file_changes_nothing(client, fresh_bot, personas):
    import_body(client, fresh_bot, personas.alice, FIXTURE.read_bytes(), "fr")
    counts = (KnowledgeItem.objects.count(), Formulation.objects.count(), MatchingGroup.objects.count())
    fresh_bot.refresh_from_db()
    version = fresh_bot.knowledge_version
    report = import_body(client, fresh_bot, personas.alice, FIXTURE.read_bytes(), "fr").json()
    assert report["intents"] == {"created": 0, "updated": 0, "unchanged": 3}
    assert report["synonyms"] == {"created": 0, "updated": 0, "unchanged": 2}
    assert report["examples"] == {"added": 0, "removed": 0}
    assert (KnowledgeItem.objects.count(), Formulation.objects.count(), MatchingGroup.objects.count()) == counts
    fresh_bot.refresh_from_db()
    assert fresh_bot.knowledge_version == version


def test_a_changed_file_updates_the_items_it_names(client, fresh_bot, personas):
    import_body(client, fresh_bot, personas.alice, FIXTURE.read_bytes(), "fr")
    greet = ExternalIntent.objects.get(bot=fresh_bot, name="greet").item
    greet.status = "published"
    greet.save()
    changed = """version: "3.1"
nlu:
- intent: greet
  examples: |
    - bonjour
    - bonsoir
- intent: thanks
  examples: |
    - merci
responses:
  utter_thanks:
  - text: Avec plaisir.
"""
    report = import_body(client, fresh_bot, personas.alice, changed, "fr").json()
    assert report["intents"] == {"created": 1, "updated": 1, "unchanged": 0}
    assert report["examples"] == {"added": 2, "removed": 3}
    assert list(greet.formulations.values_list("text", flat=True)) == ["bonjour", "bonsoir"]
    # No response for greet this time: its answer stays the one it had.
    assert greet.answers.get().text.startswith("Bonjour ! Que puis-je")
    thanks = ExternalIntent.objects.get(bot=fresh_bot, name="thanks").item
    assert thanks.status == "published" and thanks.answers.get().text == "Avec plaisir."
    # Another language adds its formulations beside the French ones.
    english = "nlu:\n- intent: greet\n  examples: |\n    - hello\n"
    assert import_body(client, fresh_bot, personas.alice, english, "en").json()["intents"]["updated"] == 1
    assert set(greet.formulations.values_list("language", "text")) == {
        ("fr", "bonjour"),
        ("fr", "bonsoir"),
        ("en", "hello"),
    }
    assert KnowledgeItem.objects.filter(bot=fresh_bot).count() == 4


def test_a_multipart_upload_and_each_yaml_media_type(client, fresh_bot, personas):
    upload = SimpleUploadedFile("nlu.yml", FIXTURE.read_bytes(), content_type="application/x-yaml")
    response = client.post(f"{BASE}/import/{fresh_bot.uuid}?language=fr", {"file": upload}, **personas.alice.auth)
    assert response.status_code == 200, response.content
    assert response.json()["intents"]["created"] == 3
    for media_type in ("application/x-yaml", "text/yaml", "text/x-yaml", "text/plain"):
        again = import_body(client, fresh_bot, personas.alice, FIXTURE.read_bytes(), "fr", content_type=media_type)
        assert again.json()["intents"]["unchanged"] == 3
    refused = import_body(client, fresh_bot, personas.alice, FIXTURE.read_bytes(), "fr", content_type="application/xml")
    assert refused.status_code == 400 and refused.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    # The language defaults to the bot's; an unknown one is refused before the file is read.
    assert import_body(client, fresh_bot, personas.alice, FIXTURE.read_bytes()).json()["language"] == "fr"
    wrong = import_body(client, fresh_bot, personas.alice, FIXTURE.read_bytes(), "de")
    assert wrong.status_code == 400 and wrong.json()["field"] == "language"
    assert Answer.objects.filter(item__bot=fresh_bot).count() == 3
