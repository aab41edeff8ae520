"""The other calls of a conversation (client-contract.md §2.2 (9)-(16)), with the chatbox's fields."""

import base64

import pytest

from dialogs.models import ClientError, Dialog, GdprRequest, Interaction
from knowledge.models import KnowledgeItem

pytestmark = pytest.mark.django_db


def test_history_replays_the_interactions_with_the_fields_the_chatbox_reads(chatbox):
    chatbox.talk("#welcome#", hidden=True)
    chatbox.talk("Bonjour")
    chatbox.talk("Combien coûte le compte ?")
    response = chatbox.post(
        f"chat/history/{chatbox.bot}", {"contextUuid": chatbox.context_id, "solutionUsed": "ASSISTANT"}
    )
    values = chatbox.values(response)
    interactions = values["interactions"]
    assert [(i["user"], i["type"]) for i in interactions] == [
        ("Bonjour", "DMUnderstoodQuestion"),
        ("Combien coûte le compte ?", "DMUnderstoodQuestion"),
    ]
    assert "2 €" in interactions[1]["text"]
    assert interactions[1]["askFeedback"] is True
    assert isinstance(interactions[0]["timestamp"], int)


def test_history_of_an_unknown_context_is_empty(chatbox):
    response = chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": "8d5fb2a4-54b3-4c9d-9d8e-000000000000"})
    assert chatbox.values(response)["interactions"] == []


def test_feedback_vote_reason_and_comment_are_stored_on_the_rated_interaction(chatbox):
    chatbox.talk("Combien coûte le compte ?")
    chatbox.talk("Merci")  # a later answer that does not ask for feedback
    ctx = chatbox.context_id
    vote = chatbox.post(
        f"chat/feedback/{chatbox.bot}", {"contextUUID": ctx, "feedBack": "negative", "solutionUsed": "ASSISTANT"}
    )
    assert vote.status_code == 200
    reason = chatbox.post(
        f"chat/feedback/insatisfaction/{chatbox.bot}",
        {"choiceKey": "1", "contextUUID": ctx, "solutionUsed": "ASSISTANT"},
    )
    assert reason.status_code == 200
    comment = chatbox.post(
        f"chat/feedback/comment/{chatbox.bot}",
        {"comment": "Trop cher", "contextUUID": ctx, "solutionUsed": "ASSISTANT"},
    )
    assert comment.status_code == 200
    rated = Interaction.objects.get(user_input="Combien coûte le compte ?")
    assert (rated.feedback, rated.feedback_choice_key, rated.feedback_comment) == ("negative", 1, "Trop cher")
    assert Interaction.objects.get(user_input="Merci").feedback == ""
    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": ctx}))
    assert history["interactions"][0]["feedBack"] == "negative"
    assert history["interactions"][0]["askFeedback"] is False


def test_positive_feedback(chatbox):
    chatbox.talk("Combien coûte le compte ?")
    chatbox.post(f"chat/feedback/{chatbox.bot}", {"contextUUID": chatbox.context_id, "feedBack": "positive"})
    assert Interaction.objects.get().feedback == "positive"


def test_context_call_opens_a_context_as_json_or_script(chatbox):
    fields = {
        "space": "Defaut",
        "language": "fr",
        "browser": "Chrome 156",
        "disableLanguageDetection": "true",
        "contextType": "Web",
        "qualificationMode": "false",
        "solutionUsed": "ASSISTANT",
        "pureLiveChat": "false",
        "clientId": "abc",
    }
    values = chatbox.values(chatbox.post(f"chat/context/{chatbox.bot}", fields))
    dialog = Dialog.objects.get(uuid=values["contextId"])
    assert (dialog.client_id, dialog.language, dialog.space) == ("abc", "fr", "Defaut")
    script = chatbox.post(f"chat/context/{chatbox.bot}", fields, HTTP_ACCEPT="application/javascript")
    assert script.content.decode().startswith('console.log("')
    new_id = script.content.decode().split('"')[1]
    assert Dialog.objects.filter(uuid=new_id).exists()


def test_previous_dialogs_of_a_client(chatbox):
    chatbox.talk("Bonjour")
    first = chatbox.context_id
    chatbox.context_id = ""
    chatbox.talk("Merci")
    response = chatbox.post(
        f"chat/dialog/previous/{chatbox.bot}", {"solutionUsed": "ASSISTANT", "clientId": chatbox.client_id}
    )
    assert response.json()["type"] == "getPreviousDialogsResponse"
    previous = chatbox.values(response)["previousDialogs"]
    assert {d["contextId"] for d in previous} == {first, chatbox.context_id}


def test_client_error_is_stored(chatbox, demo_bot):
    fields = {
        "contextUuid": "x",
        "solutionUsed": "ASSISTANT",
        "error": "TypeError",
        "message": "undefined is not a function",
        "stackTrace": "at foo (bar.js:1)",
        "browser": "Firefox",
    }
    response = chatbox.post(f"chat/error/{chatbox.bot}", fields)
    assert response.json() == {}
    error = ClientError.objects.get()
    assert (error.bot, error.error, error.stack_trace) == (demo_bot, "TypeError", "at foo (bar.js:1)")


def test_variable_is_set_then_deleted(chatbox):
    chatbox.talk("Bonjour")
    fields = {
        "contextUuid": chatbox.context_id,
        "name": "city",
        "value": "Lille &amp; Roubaix",
        "solutionUsed": "ASSISTANT",
    }
    assert chatbox.post(f"chat/variable/{chatbox.bot}", fields).status_code == 200
    assert Dialog.objects.get(uuid=chatbox.context_id).variables == {"city": "Lille & Roubaix"}
    chatbox.post(f"chat/variable/{chatbox.bot}", {**fields, "value": ""})
    assert Dialog.objects.get(uuid=chatbox.context_id).variables == {}


def test_search_suggests_rewordable_formulations_matching_the_typed_words(chatbox):
    fields = {"language": "fr", "search": "comment faire un vir", "space": "Defaut", "onlyShowRewordables": "true"}
    response = chatbox.post(f"chat/search/{chatbox.bot}", fields)
    suggestions = response.json()
    assert isinstance(suggestions, list)
    assert suggestions[0]["rootConditionReword"] == "Comment faire un virement ?"
    # "virement" alone is a formulation not offered as a suggestion (not rewordable)
    shown = {
        s["rootConditionReword"]
        for s in chatbox.post(f"chat/search/{chatbox.bot}", {**fields, "search": "vire"}).json()
    }
    assert "virement" not in shown
    assert "Comment faire un virement ?" in shown


def test_search_never_suggests_drafts_or_disabled_items(chatbox, demo_bot):
    fields = {"language": "fr", "search": "nouvelle carte premium", "space": "Defaut"}
    assert chatbox.post(f"chat/search/{chatbox.bot}", fields).json() == []
    draft = KnowledgeItem.objects.get(bot=demo_bot, label="Draft: new premium card")
    draft.status = "published"
    draft.save()
    shown = [s["rootConditionReword"] for s in chatbox.post(f"chat/search/{chatbox.bot}", fields).json()]
    assert shown == ["Parlez-moi de la nouvelle carte premium"]
    draft.status = "disabled"
    draft.save()
    assert chatbox.post(f"chat/search/{chatbox.bot}", fields).json() == []


def test_typing_stores_what_the_user_is_typing(chatbox):
    chatbox.talk("Bonjour")
    content = base64.b64encode(b"je voudrais").decode()
    fields = {"typing": "true", "content": content, "contextId": chatbox.context_id, "solutionUsed": "ASSISTANT"}
    assert chatbox.post(f"chat/typing/{chatbox.bot}", fields).json() == {}
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    assert (dialog.user_typing, dialog.typing_content) == (True, "je voudrais")


def test_gdpr_request_is_stored_for_the_back_office(chatbox, demo_bot):
    for wanted in ("Get", "Delete"):
        fields = {"clientId": chatbox.client_id, "language": "fr", "mail": "alice@example.org", "object": wanted}
        assert chatbox.post(f"chat/gdpr/{chatbox.bot}", fields).json() == {}
    requests = GdprRequest.objects.filter(bot=demo_bot).order_by("id")
    assert [(r.object, r.mail, r.status) for r in requests] == [
        ("Get", "alice@example.org", "pending"),
        ("Delete", "alice@example.org", "pending"),
    ]


def test_votes_on_two_answers_rate_each_in_turn(chatbox):
    chatbox.talk("Combien coûte le compte ?")
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    ctx = chatbox.context_id
    chatbox.post(f"chat/feedback/{chatbox.bot}", {"contextUUID": ctx, "feedBack": "positive"})
    chatbox.post(f"chat/feedback/{chatbox.bot}", {"contextUUID": ctx, "feedBack": "negative"})
    chatbox.post(f"chat/feedback/insatisfaction/{chatbox.bot}", {"contextUUID": ctx, "choiceKey": "2"})
    rows = dict(Interaction.objects.values_list("user_input", "feedback"))
    assert rows == {"Quels sont vos horaires d'ouverture ?": "positive", "Combien coûte le compte ?": "negative"}
    assert Interaction.objects.get(feedback="negative").feedback_choice_key == 2
