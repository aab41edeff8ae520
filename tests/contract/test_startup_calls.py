"""The chatbox's startup calls (client-contract.md §2.2 (1)-(7)), sent with exactly its fields."""

import base64
import json

import pytest

from knowledge.models import KnowledgeItem

pytestmark = pytest.mark.django_db


def test_serverstatus_answers_anonymous_get_with_status(client):
    response = client.get("/servlet/api/serverstatus")
    assert response.status_code == 200
    assert response.json()["status"] in {"Ok", "Warning", "Ko", "Unknown"}


def test_welcomecall_stores_the_visit_and_answers_logged(chatbox, demo_bot):
    fields = {
        "contextUuid": "",
        "language": "fr",
        "qualificationMode": "false",
        "solutionUsed": "ASSISTANT",
        "space": "Defaut",
        "variables": "{}",
    }
    response = chatbox.post(f"chat/welcomecall/{chatbox.bot}", fields)
    assert response.status_code == 200
    assert response.content == b"/*logged*/"
    visit = demo_bot.visits.get()
    assert (visit.language, visit.space, visit.qualification_mode) == ("fr", "Defaut", False)


def test_pushrules_without_event_rules_is_an_empty_object(chatbox, demo_bot):
    KnowledgeItem.objects.filter(bot=demo_bot, kind=KnowledgeItem.Kind.EVENT).delete()
    response = chatbox.client.post(chatbox.url(f"chat/pushrules/{chatbox.bot}"))
    assert response.status_code == 200
    assert response.json() == {}


def test_pushrules_carry_published_event_items_as_one_base64_json_string(chatbox, demo_bot):
    rule = {"type": "IdleDuration", "operator": "GreaterThan", "value": "30", "param_1": "", "children": []}
    item = KnowledgeItem.objects.create(
        bot=demo_bot, kind=KnowledgeItem.Kind.EVENT, status=KnowledgeItem.Status.PUBLISHED, event_rules=[rule]
    )
    KnowledgeItem.objects.create(
        bot=demo_bot, kind=KnowledgeItem.Kind.EVENT, status=KnowledgeItem.Status.DRAFT, event_rules=[rule]
    )
    body = chatbox.client.post(chatbox.url(f"chat/pushrules/{chatbox.bot}")).json()
    rules = json.loads(base64.b64decode(body["values"]).decode())
    assert rules == [{"kId": item.pk, "conditions": [rule]}]


def test_availablecontext_is_true_for_a_live_context_and_false_otherwise(chatbox):
    chatbox.talk("#welcome#", hidden=True)
    live = chatbox.values(chatbox.client.post(chatbox.url(f"chat/availablecontext/{chatbox.bot}/{chatbox.context_id}")))
    assert live == {"isContextStillAvailable": True}
    unknown = "0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11"
    for context in (unknown, "not-a-uuid"):
        response = chatbox.client.post(chatbox.url(f"chat/availablecontext/{chatbox.bot}/{context}"))
        assert chatbox.values(response) == {"isContextStillAvailable": False}


def test_chat_status_says_not_in_a_waiting_queue(chatbox):
    chatbox.talk("Bonjour")
    response = chatbox.client.get(chatbox.url(f"chat/status/{chatbox.bot}/{chatbox.context_id}"))
    assert chatbox.values(response) == {"waitingQueueStatusResponse": False}


def test_bot_languages_is_a_raw_array_of_iso_codes(chatbox):
    response = chatbox.client.get(chatbox.url(f"account/dydubox/bots/language?botUUID={chatbox.bot}"))
    assert response.status_code == 200
    assert response.json() == [{"id": "fr", "isAvailable": True}, {"id": "en", "isAvailable": True}]


def test_topknowledge_counts_real_usage_and_leaves_qualification_dialogs_out(chatbox, client):
    for _ in range(3):
        chatbox.context_id = ""
        chatbox.talk("Comment faire un virement ?")
    chatbox.context_id = ""
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    chatbox.context_id = ""
    for _ in range(5):  # a qualification-mode dialog is never counted
        chatbox.talk("Comment ouvrir un compte ?", qualificationMode="true")
    fields = {
        "language": "fr",
        "maxKnowledge": "5",
        "period": "Last30Days",
        "space": "Defaut",
        "solutionUsed": "ASSISTANT",
    }
    response = chatbox.post(f"chat/topknowledge/{chatbox.bot}", fields)
    body = response.json()
    assert body["type"] == "topKnowledgeResponse"
    values = chatbox.values(response)
    articles = json.loads(values["knowledgeArticles"])
    # The demo's three featured questions first (their editors' order), each with its real usage; the two
    # places left go to items nobody used: the one asked in qualification mode counts for nothing.
    shown = [(article["reword"], article["usage"]) for article in articles]
    assert shown[:3] == [
        ("Quels sont vos horaires d'ouverture ?", 1),
        ("J'ai perdu ma carte", 0),
        ("Comment faire un virement ?", 3),
    ]
    assert len(shown) == 5 and [usage for _, usage in shown[3:]] == [0, 0]
    assert isinstance(values["serverTime"], int)
    assert values["tagName"] == ""


def test_topknowledge_filters_by_tag_name_or_id(chatbox, demo_bot):
    chatbox.talk("Comment faire un virement ?")
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    tag = demo_bot.tags.get(name="Virements")
    for value in ("Virements", str(tag.pk)):
        response = chatbox.post(f"chat/topknowledge/{chatbox.bot}", {"language": "fr", "tag": value})
        values = chatbox.values(response)
        assert [a["reword"] for a in json.loads(values["knowledgeArticles"])] == ["Comment faire un virement ?"]
        assert values["tagName"] == "Virements"
