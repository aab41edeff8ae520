"""chat/topknowledge on a fresh bot: with no usage in the period, the bot's featured items (its curated
questions, in knowledge order), so the chatbox's first screen is never empty; any usage wins."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotLanguage, Space
from knowledge.models import Answer, Formulation, KnowledgeItem, Tag

from ..conftest import Chatbox

pytestmark = pytest.mark.django_db

# What CV5 sends (client-contract.md §2.2 (7)).
CV5_FIELDS = {
    "language": "fr",
    "maxKnowledge": "3",
    "period": "Last30Days",
    "space": "Defaut",
    "solutionUsed": "ASSISTANT",
}


def top(chatbox, **fields) -> list[dict]:
    response = chatbox.post(f"chat/topknowledge/{chatbox.bot}", CV5_FIELDS | fields)
    assert response.json()["type"] == "topKnowledgeResponse"
    return json.loads(chatbox.values(response)["knowledgeArticles"])


def test_a_fresh_demo_bot_offers_its_featured_questions(chatbox):
    articles = top(chatbox)
    assert [(a["reword"], a["usage"]) for a in articles] == [
        ("Quels sont vos horaires d'ouverture ?", 0),
        ("J'ai perdu ma carte", 0),
        ("Comment faire un virement ?", 0),
    ]
    assert {a["pathTag"] for a in articles} == {"Agences", "Cartes", "Virements"}
    assert [a["reword"] for a in top(chatbox, maxKnowledge="10")][3:] == [
        "Quelles cartes proposez-vous ?",
        "Nos offres de compte",
    ]
    assert [a["reword"] for a in top(chatbox, language="en")][:2] == ["What are your opening hours?", "I lost my card"]


def test_usage_in_the_period_wins_over_the_featured_questions(chatbox):
    chatbox.talk("Combien coûte le compte ?")
    chatbox.talk("Combien coûte le compte ?")
    chatbox.talk("Comment ouvrir un compte ?")
    articles = top(chatbox)
    assert [(a["reword"], a["usage"]) for a in articles] == [
        ("Combien coûte le compte ?", 2),
        ("Comment ouvrir un compte ?", 1),
    ]
    # A quieter period still falls back to the featured questions.
    assert [a["usage"] for a in top(chatbox, period="Yesterday")] == [0, 0, 0]


def test_the_featured_questions_follow_the_tag_filter(chatbox):
    articles = top(chatbox, tag="Cartes")
    assert [a["reword"] for a in articles] == ["J'ai perdu ma carte"]


def fresh_bot(account) -> tuple[Bot, dict[str, KnowledgeItem]]:
    bot = Bot.objects.create(name="Fresh", account=account, default_language="fr")
    BotLanguage.objects.create(bot=bot, code="fr")
    space = Space.objects.create(bot=bot, name="Defaut", is_default=True)
    tag = Tag.objects.create(bot=bot, name="Aide")
    items = {}
    for position, (label, status, featured) in enumerate(
        [
            ("Horaires", "published", False),
            ("Tarifs", "published", True),
            ("Brouillon", "draft", True),  # never offered outside qualification mode
            ("Contact", "published", True),
        ]
    ):
        item = KnowledgeItem.objects.create(
            bot=bot, label=label, status=status, featured=featured, position=position, tag=tag
        )
        Formulation.objects.create(item=item, language="fr", text=f"{label} ?")
        Answer.objects.create(item=item, language="fr", space=space, text=f"Réponse {label}.")
        items[label] = item
    return bot, items


def test_a_brand_new_bot_offers_only_its_published_featured_items(client, personas):
    bot, items = fresh_bot(personas.account)
    chatbox = Chatbox(client, str(bot.uuid))
    assert [a["reword"] for a in top(chatbox)] == ["Tarifs ?", "Contact ?"]
    assert [a["reword"] for a in top(chatbox, qualificationMode="true")] == ["Tarifs ?", "Brouillon ?", "Contact ?"]
    # Featuring is knowledge: the change is seen at once.
    items["Horaires"].featured = True
    items["Horaires"].save()
    assert [a["knowledgeId"] for a in top(chatbox)] == [items["Horaires"].pk, items["Tarifs"].pk, items["Contact"].pk]
    # The featured ids are read once per knowledge version.
    with CaptureQueriesContext(connection) as captured:
        top(chatbox)
    assert not [q for q in captured.captured_queries if "featured" in q["sql"]]
    KnowledgeItem.objects.filter(bot=bot).update(featured=False)
    Bot.objects.filter(pk=bot.pk).update(knowledge_version=bot.knowledge_version + 100)
    assert top(chatbox) == []
