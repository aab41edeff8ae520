"""Bots for the Rasa tests: the demo bot (with Alice, Bob and Charlie), a fresh empty bot of the same
account, and a bot whose knowledge holds what YAML and Rasa's example syntax could trip on."""

import pytest

from bots.models import Bot, BotLanguage, Space
from knowledge.models import Formulation, KnowledgeItem, MatchingGroup
from tests.accounts.personas import personas  # noqa: F401

BASE = "/servlet/api/externalmatchers/rasa"

TRICKY_GROUPS = [
    ("carte", ["carte", "carte bleue", "{carte de paiement}"]),
    ("carte de paiement", ["carte de crédit", "mastercard"]),
    ("Taux: «crédit»", ['taux "fixe"', "taux : variable", "- négatif", "l'usure"]),
    ("boucle", ["{boucle}", "anneau"]),  # a group naming itself: cycles are harmless
]
# label, status, kind, {language: formulations}
TRICKY_ITEMS = [
    ("Carte perdue", "published", "question", {"fr": ["J'ai perdu ma {carte}", "{carte}", "carte   égarée\n"]}),
    ("Crédit : « taux »", "published", "question", {"fr": ['Quel est le "taux" : fixe ?', "- commence par un tiret"]}),
    ("Crédit : « taux »", "draft", "question", {"fr": ["Même libellé, autre question"]}),
    ("123", "published", "question", {"fr": ["# dièse en tête", "yes", "null", "~", "*étoile", "&ancre", "!tag"]}),
    ("", "published", "question", {"fr": ["Voir [le lien](https://exemple.fr) ici", 'un [texte]{"pas": json} là']}),
    ("Événement spécial", "published", "question", {"fr": ["{Taux: «crédit»} et %pourcent | barre > chevron"]}),
    ("Bilingue", "published", "question", {"fr": ["Bonjour"], "en": ["Hello", "Hi: there"]}),
    ("Désactivé", "disabled", "question", {"fr": ["Jamais exporté"]}),
    ("Réponse prédéfinie", "published", "predefined", {"fr": ["Pour les opérateurs"]}),
    ("Sans formulation", "published", "question", {}),
    ("", "draft", "question", {"fr": ["¿?"]}),  # nothing readable: named from its id
]


def empty_bot(account, name: str) -> Bot:
    """A bot of `account` in French (default) and English, with its default space and no knowledge."""
    bot = Bot.objects.create(name=name, account=account, default_language="fr")
    BotLanguage.objects.bulk_create([BotLanguage(bot=bot, code="fr"), BotLanguage(bot=bot, code="en")])
    Space.objects.create(bot=bot, name="Defaut", is_default=True)
    return bot


@pytest.fixture
def tricky_bot(personas):  # noqa: F811
    bot = empty_bot(personas.account, "Tricky: « bot »")
    for name, members in TRICKY_GROUPS:
        MatchingGroup.objects.create(bot=bot, name=name, members=members)
    for position, (label, status, kind, formulations) in enumerate(TRICKY_ITEMS):
        item = KnowledgeItem.objects.create(bot=bot, label=label, status=status, kind=kind, position=position)
        for language, texts in formulations.items():
            for index, text in enumerate(texts):
                Formulation.objects.create(item=item, language=language, text=text, position=index)
    return bot


@pytest.fixture
def fresh_bot(personas):  # noqa: F811
    """An empty bot of the demo bot's account, in French and English."""
    return empty_bot(personas.account, "Fresh")


def export(client, bot, persona, language: str = "") -> str:
    url = f"{BASE}/export/{bot.uuid}" + (f"?language={language}" if language else "")
    response = client.get(url, **persona.auth)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/yaml; charset=utf-8"
    return response.content.decode("utf-8")


def import_body(client, bot, persona, text: str | bytes, language: str = "", content_type: str = "application/yaml"):
    url = f"{BASE}/import/{bot.uuid}" + (f"?language={language}" if language else "")
    body = text.encode("utf-8") if isinstance(text, str) else text
    return client.post(url, body, content_type=content_type, **persona.auth)


def status(client, bot, persona) -> dict:
    response = client.get(f"{BASE}/status/{bot.uuid}", **persona.auth)
    assert response.status_code == 200, response.content
    return {entry["language"]: entry for entry in response.json()["languages"]}
