"""chat/topknowledge, the chatbox's start screen: the bot's featured items (its curated questions, in
knowledge order) first, so the first screen is never empty, then the period's most used items, up to the
number asked; usage never pushes a featured item out (issue 28 item 3). The same answer over the
websocket's topknowledge frame."""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotLanguage, Space
from config.asgi import application
from knowledge.models import Answer, Formulation, KnowledgeItem, Tag
from tests.livechat.conftest import b64, common

from ..conftest import Chatbox, decode

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


FEATURED = [
    "Quels sont vos horaires d'ouverture ?",
    "J'ai perdu ma carte",
    "Comment faire un virement ?",
    "Quelles cartes proposez-vous ?",
    "Nos offres de compte",
]


def test_the_featured_questions_stay_once_questions_are_asked(chatbox):
    """The issue: 3 on a fresh install, then only the one item used. Now the featured ones stay, with the
    period's usage of each; the most used items complete them when more are asked."""
    assert [a["reword"] for a in top(chatbox)] == FEATURED[:3]
    chatbox.talk("Combien coûte le compte ?")
    assert [(a["reword"], a["usage"]) for a in top(chatbox)] == [(question, 0) for question in FEATURED[:3]]
    chatbox.talk("Combien coûte le compte ?")
    chatbox.talk("Comment ouvrir un compte ?")
    chatbox.talk("Comment faire un virement ?")
    articles = top(chatbox, maxKnowledge="10")
    assert [(a["reword"], a["usage"]) for a in articles] == [
        *[(question, 1 if question == "Comment faire un virement ?" else 0) for question in FEATURED],
        ("Combien coûte le compte ?", 2),
        ("Comment ouvrir un compte ?", 1),
    ]
    assert [a["reword"] for a in top(chatbox, maxKnowledge="6")] == [*FEATURED, "Combien coûte le compte ?"]
    # Fewer asked than featured: the first featured ones, in the editors' order.
    assert [a["reword"] for a in top(chatbox, maxKnowledge="2")] == FEATURED[:2]
    # A quieter period: the featured questions, nothing used to add.
    assert [a["usage"] for a in top(chatbox, period="Yesterday", maxKnowledge="10")] == [0] * len(FEATURED)


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


def test_a_new_bots_featured_items_are_completed_by_the_most_used(client, personas):
    bot, _ = fresh_bot(personas.account)
    chatbox = Chatbox(client, str(bot.uuid))
    chatbox.talk("Horaires ?")
    chatbox.talk("Contact ?")
    assert [(a["reword"], a["usage"]) for a in top(chatbox)] == [("Tarifs ?", 0), ("Contact ?", 1), ("Horaires ?", 1)]
    assert [a["reword"] for a in top(chatbox, maxKnowledge="2")] == ["Tarifs ?", "Contact ?"]


@pytest.mark.django_db(transaction=True)
def test_the_websocket_frame_gets_the_same_articles_as_the_rest_call(client, demo_bot):
    """Both chatboxes: CV5 over REST, ours (and CV5 over its websocket) with the topknowledge frame."""
    chatbox = Chatbox(client, str(demo_bot.uuid))
    chatbox.talk("Combien coûte le compte ?")
    for size in ("3", "7"):
        over_rest = top(chatbox, maxKnowledge=size)
        parameters = common(chatbox.bot) | {"maxKnowledge": b64(size), "period": b64("Last30Days")}
        reply = frame_reply({"type": "topknowledge", "parameters": parameters})
        assert reply["type"] == "topKnowledgeResponse"
        assert json.loads(decode(reply["values"])["knowledgeArticles"]) == over_rest
    assert [a["reword"] for a in over_rest] == [*FEATURED, "Combien coûte le compte ?"]


def frame_reply(frame: dict) -> dict:
    async def go():
        communicator = WebsocketCommunicator(application, "/servlet//chatWs")
        connected, _ = await communicator.connect()
        assert connected
        try:
            await communicator.send_to(text_data=json.dumps(frame))
            return json.loads(await communicator.receive_from(timeout=10))
        finally:
            await communicator.disconnect()

    return async_to_sync(go)()
