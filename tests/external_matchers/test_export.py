"""The Rasa NLU export: valid for Rasa's published schema and reader, one intent per item with stable
names, formulation syntax turned into plain examples, matching groups as synonyms, one language a file."""

from pathlib import Path

import pytest
import yaml

from knowledge.external import rasa_format
from knowledge.external.models import ExternalIntent
from knowledge.external.rasa_export import Block, NluDumper
from knowledge.models import KnowledgeItem

from . import rasa_nlu
from .conftest import BASE, export

FIXTURE = Path(__file__).parent / "fixtures" / "tricky_nlu.yml"


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_demo_bot_exports_valid_rasa_nlu_data_per_language(client, demo_bot, personas, language):
    text = export(client, demo_bot, personas.alice, language)
    document = rasa_nlu.validate(text)
    assert document["version"] == "3.1"
    assert text.startswith('version: "3.1"\nnlu:\n') or text.startswith("version: '3.1'\nnlu:\n")
    intents, synonyms = rasa_nlu.read(text)
    reachable = (
        KnowledgeItem.objects.filter(bot=demo_bot, kind__in=["question", "slot"], formulations__language=language)
        .exclude(status="disabled")
        .distinct()
    )
    assert len(intents) == reachable.count() > 30
    # One example per formulation of the item (the demo's are distinct and hold no group reference).
    lost_card = ExternalIntent.objects.get(bot=demo_bot, name=next(iter(intents))).item
    assert intents[next(iter(intents))] == list(
        lost_card.formulations.filter(language=language).values_list("text", flat=True)
    )
    # Every matching group, nested ones flattened: `carte` holds the members of `carte de paiement`.
    assert synonyms["carte"][:4] == ["carte", "carte bancaire", "carte bleue", "cb"]
    assert "mastercard" in synonyms["carte"] and "mastercard" in synonyms["carte de paiement"]
    # Every example is a formulation of that language, written plainly (no `{group}` left).
    assert all("{" not in line and "}" not in line for lines in intents.values() for line in lines)


def test_the_tricky_bot_exports_what_rasa_reads_back_as_the_same_phrases(client, tricky_bot, personas):
    text = export(client, tricky_bot, personas.alice, "fr")
    intents, synonyms = rasa_nlu.read(text)
    names = list(intents)
    unreadable = KnowledgeItem.objects.get(bot=tricky_bot, formulations__text="¿?").pk
    assert names == [
        "carte_perdue",
        "credit_taux",
        "credit_taux_2",
        "item_123",
        "voir_le_lien_https_exemple_fr_ici",
        "evenement_special",
        "bilingue",
        f"item_{unreadable}",
    ]
    # `{carte}` is the group's first member; whitespace collapsed; the same phrase once.
    assert intents["carte_perdue"] == ["J'ai perdu ma carte", "carte", "carte égarée"]
    assert intents["credit_taux"] == ['Quel est le "taux" : fixe ?', "- commence par un tiret"]
    assert intents["item_123"] == ["# dièse en tête", "yes", "null", "~", "*étoile", "&ancre", "!tag"]
    # Rasa's entity syntax is broken apart, so Rasa neither annotates nor refuses the example; `{…}` is
    # this product's group reference (an unknown group stands for its own words).
    assert intents[names[4]] == ["Voir [le lien] (https://exemple.fr) ici", 'un [texte] "pas": json là']
    assert intents["evenement_special"] == ['taux "fixe" et %pourcent | barre > chevron']
    assert synonyms == {
        "boucle": ["anneau"],
        "carte": ["carte", "carte bleue", "carte de crédit", "mastercard"],
        "carte de paiement": ["carte de crédit", "mastercard"],
        "Taux: «crédit»": ['taux "fixe"', "taux : variable", "- négatif", "l'usure"],
    }
    assert intents[f"item_{unreadable}"] == ["¿?"]
    # Left out: the disabled item, the predefined answer, the item without formulations.
    assert len(intents) == 8
    english, _ = rasa_nlu.read(export(client, tricky_bot, personas.alice, "en"))
    assert english == {"bilingue": ["Hello", "Hi: there"]}


def test_intent_names_are_given_once_and_survive_a_label_edit(client, tricky_bot, personas):
    first = export(client, tricky_bot, personas.alice, "fr")
    item = KnowledgeItem.objects.get(bot=tricky_bot, label="Carte perdue")
    item.label = "Perte de carte bancaire"
    item.save()
    assert export(client, tricky_bot, personas.alice, "fr") == first
    assert ExternalIntent.objects.get(item=item).name == "carte_perdue"
    # A new item gets a name no other item has.
    KnowledgeItem.objects.create(bot=tricky_bot, label="Carte perdue", status="published").formulations.create(
        language="fr", text="encore une carte perdue"
    )
    intents, _ = rasa_nlu.read(export(client, tricky_bot, personas.alice, "fr"))
    assert intents["carte_perdue_2"] == ["encore une carte perdue"]


def test_the_file_is_a_download_named_for_the_bot_and_language(client, demo_bot, personas):
    response = client.get(f"{BASE}/export/{demo_bot.uuid}?language=en", **personas.alice.auth)
    assert response.status_code == 200
    assert "rasa nlu en" in response["Content-Disposition"] and ".yml" in response["Content-Disposition"]
    # The default language is the bot's.
    default = client.get(f"{BASE}/export/{demo_bot.uuid}", **personas.alice.auth).content
    assert default == client.get(f"{BASE}/export/{demo_bot.uuid}?language=fr", **personas.alice.auth).content
    # Also under /api/ (CV5's host rule), with a trailing slash.
    assert client.get(f"/api/externalmatchers/rasa/export/{demo_bot.uuid}/", **personas.alice.auth).status_code == 200


@pytest.mark.parametrize("language", ["de", "xx", "fr%00"])
def test_a_language_the_bot_does_not_have_is_a_400(client, demo_bot, personas, language):
    response = client.get(f"{BASE}/export/{demo_bot.uuid}?language={language}", **personas.alice.auth)
    assert response.status_code == 400
    assert response.json()["field"] == "language"


def test_the_fixture_is_valid_rasa_data_and_the_checker_refuses_what_rasa_refuses():
    intents, _synonyms = rasa_nlu.read(FIXTURE.read_text().replace("[Zoé](prénom)", "Zoé").replace(
        '[prêt immobilier]{"entity": "produit", "value": "prêt"}', "prêt immobilier"))  # fmt: skip
    assert intents["greet"] == ["bonjour", "salut !", "Bonjour: je m'appelle Zoé", "coucou"]
    assert rasa_nlu.validate(FIXTURE.read_text())["nlu"][0]["intent"] == "greet"
    refused = [
        "version: '3.1'\nnlu:\n- intent: x\n  examples: 3\n",
        "version: '3.1'\nnlu:\n- intent: ''\n  examples: |\n    - a\n",
        "version: '3.1'\nnlu:\n- intent: x\n  exemples: |\n    - a\n",
        "version: '9.0'\nnlu:\n- intent: x\n  examples: |\n    - a\n",
        "version: '3.1'\nnlu:\n- intent: x\n  examples: |\n    - [a]{nope}\n",
        "version: '3.1'\nnlu:\n- intent: x\n  examples: |\n    a\n",
    ]
    for text in refused:
        with pytest.raises((rasa_nlu.RasaRefuses, ValueError)):
            rasa_nlu.read(text)
    assert yaml.safe_load(refused[0])["nlu"][0]["examples"] == 3


@pytest.mark.parametrize(
    "phrase",
    [
        '[LA]{"entity": "city"} en avion',
        "[a](b) et [c](d:e)",
        "[x]{pas du JSON}",
        "tab\tnewline\nline\u2028sep\x1cend\x07",
        "  - - tirets  ",
    ],
)
def test_an_example_line_is_read_by_rasa_as_the_phrase_without_entities(phrase):
    line = rasa_format.example_text(phrase)
    document = {"version": "3.1", "nlu": [{"intent": "x", "examples": Block(rasa_format.block([line]))}]}
    intents, _ = rasa_nlu.read(yaml.dump(document, Dumper=NluDumper, allow_unicode=True, sort_keys=False))
    assert intents == {"x": [line]}
    # Only a space after "]" where Rasa would have seen an annotation, and whitespace made single spaces.
    assert line.replace("] ", "]") == " ".join(phrase.replace("\x07", " ").split()).replace("] ", "]")
