"""Bad input on every chat endpoint: a clear JSON error with the right status, never a 500, and
nothing stored."""

import pytest

from dialogs.models import ClientError, Dialog, GdprRequest, Interaction, Visit

pytestmark = pytest.mark.django_db

UNKNOWN_BOT = "6f1c2b1e-0000-4000-8000-00000000dead"
CHAT_CALLS = [
    "chat/talk/{bot}",
    "chat/talk/{bot}/0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11",
    "chat/welcomecall/{bot}",
    "chat/pushrules/{bot}",
    "chat/availablecontext/{bot}/0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11",
    "chat/status/{bot}/0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11",
    "chat/history/{bot}",
    "chat/topknowledge/{bot}",
    "chat/search/{bot}",
    "chat/feedback/{bot}",
    "chat/feedback/comment/{bot}",
    "chat/feedback/insatisfaction/{bot}",
    "chat/context/{bot}",
    "chat/dialog/previous/{bot}",
    "chat/error/{bot}",
    "chat/variable/{bot}",
    "chat/typing/{bot}",
    "chat/reading/{bot}",
    "chat/gdpr/{bot}",
]


def stored() -> tuple:
    return tuple(model.objects.count() for model in (Dialog, Interaction, Visit, ClientError, GdprRequest))


def assert_json_error(response, status: int, code: str | None = None, field: str | None = None):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"]
    if code:
        assert body["code"] == code
    if field:
        assert body["field"] == field
        assert field in body["error"]


@pytest.mark.parametrize("path", CHAT_CALLS)
@pytest.mark.parametrize("bot", [UNKNOWN_BOT, "not-a-uuid"])
def test_unknown_bot_is_a_404_json_error(client, demo_bot, path, bot):
    before = stored()
    response = client.post("/servlet/api/" + path.format(bot=bot), {"userInput": "Bonjour", "contextUuid": "x"})
    assert_json_error(response, 404, "UNKNOWN_BOT")
    assert stored() == before


def test_unknown_bot_on_languages(client, demo_bot):
    assert_json_error(
        client.get(f"/servlet/api/account/dydubox/bots/language?botUUID={UNKNOWN_BOT}"), 404, "UNKNOWN_BOT"
    )
    assert_json_error(client.get("/servlet/api/account/dydubox/bots/language"), 400, "MISSING_FIELD", "botUUID")


@pytest.mark.parametrize(
    "path,fields,field",
    [
        ("chat/history/{bot}", {}, "contextUuid"),
        ("chat/feedback/{bot}", {"contextUUID": "{ctx}"}, "feedBack"),
        ("chat/feedback/{bot}", {"feedBack": "positive"}, "contextUuid"),
        ("chat/feedback/comment/{bot}", {"contextUUID": "{ctx}"}, "comment"),
        ("chat/feedback/insatisfaction/{bot}", {"contextUUID": "{ctx}"}, "choiceKey"),
        ("chat/search/{bot}", {"language": "fr"}, "search"),
        ("chat/dialog/previous/{bot}", {"solutionUsed": "ASSISTANT"}, "clientId"),
        ("chat/error/{bot}", {"message": "boom"}, "error"),
        ("chat/error/{bot}", {"error": "TypeError"}, "message"),
        ("chat/variable/{bot}", {"contextUuid": "{ctx}", "value": "x"}, "name"),
        ("chat/variable/{bot}", {"name": "x", "value": "y"}, "contextUuid"),
        ("chat/typing/{bot}", {"content": ""}, "contextUuid"),
        ("chat/gdpr/{bot}", {"object": "Get"}, "clientId"),
        ("chat/gdpr/{bot}", {"clientId": "abc"}, "object"),
    ],
)
def test_a_missing_required_field_is_a_400_naming_it(chatbox, path, fields, field):
    chatbox.talk("Combien coûte le compte ?")
    before = stored()
    data = {key: value.replace("{ctx}", chatbox.context_id) for key, value in fields.items()}
    response = chatbox.post(path.format(bot=chatbox.bot), data)
    assert_json_error(response, 400, "MISSING_FIELD", field)
    assert stored() == before


@pytest.mark.parametrize(
    "path,fields,field",
    [
        ("chat/talk/{bot}", {"userInput": "Bonjour", "qualificationMode": "maybe"}, "qualificationMode"),
        ("chat/talk/{bot}", {"userInput": "Bonjour", "doNotRegisterInteraction": "2"}, "doNotRegisterInteraction"),
        ("chat/talk/{bot}", {"userInput": "Bonjour", "alreadyCame": "yes please"}, "alreadyCame"),
        ("chat/talk/{bot}", {"userInput": "Bonjour", "extraParameters": "{not json"}, "extraParameters"),
        ("chat/talk/{bot}", {"userInput": "Bonjour", "variables": '{"a": [1'}, "variables"),
        ("chat/welcomecall/{bot}", {"qualificationMode": "perhaps"}, "qualificationMode"),
        ("chat/context/{bot}", {"qualificationMode": "nope"}, "qualificationMode"),
        ("chat/topknowledge/{bot}", {"period": "LastCentury"}, "period"),
        ("chat/topknowledge/{bot}", {"maxKnowledge": "many"}, "maxKnowledge"),
        ("chat/topknowledge/{bot}", {"maxKnowledge": "-3"}, "maxKnowledge"),
        ("chat/search/{bot}", {"search": "carte", "onlyShowRewordables": "sometimes"}, "onlyShowRewordables"),
        ("chat/feedback/{bot}", {"contextUUID": "{ctx}", "feedBack": "meh"}, "feedBack"),
        ("chat/feedback/insatisfaction/{bot}", {"contextUUID": "{ctx}", "choiceKey": "7"}, "choiceKey"),
        ("chat/feedback/insatisfaction/{bot}", {"contextUUID": "{ctx}", "choiceKey": "one"}, "choiceKey"),
        ("chat/gdpr/{bot}", {"clientId": "abc", "object": "Sell"}, "object"),
        ("chat/gdpr/{bot}", {"clientId": "abc", "object": "Get", "mail": "not-an-address"}, "mail"),
        ("chat/typing/{bot}", {"contextId": "{ctx}", "typing": "perhaps", "content": ""}, "typing"),
    ],
)
def test_an_invalid_value_is_a_400_naming_the_field_and_changes_nothing(chatbox, path, fields, field):
    chatbox.talk("Combien coûte le compte ?")
    before = stored()
    rated_before = list(Interaction.objects.values_list("feedback", "feedback_choice_key"))
    data = {key: value.replace("{ctx}", chatbox.context_id) for key, value in fields.items()}
    response = chatbox.post(path.format(bot=chatbox.bot), data)
    assert_json_error(response, 400, "INVALID_FIELD", field)
    assert stored() == before
    assert list(Interaction.objects.values_list("feedback", "feedback_choice_key")) == rated_before


def test_feedback_on_an_unknown_context_is_a_404(chatbox):
    response = chatbox.post(f"chat/feedback/{chatbox.bot}", {"contextUUID": "nope", "feedBack": "positive"})
    assert_json_error(response, 404, "UNKNOWN_CONTEXT")


def test_feedback_before_any_answer_is_a_404(chatbox):
    values = chatbox.values(chatbox.post(f"chat/context/{chatbox.bot}", {"language": "fr"}))
    response = chatbox.post(
        f"chat/feedback/{chatbox.bot}", {"contextUUID": values["contextId"], "feedBack": "positive"}
    )
    assert_json_error(response, 404, "NO_INTERACTION")


def test_an_oversize_input_is_truncated_not_rejected(chatbox):
    values = chatbox.talk("Bonjour " * 5000)
    assert values["typeResponse"]
    assert len(Interaction.objects.get().user_input) == 600


def test_a_body_that_is_not_form_encoded_is_read_leniently(client, demo_bot):
    # toFormUrlEncoded bodies are not percent-encoded (client-contract.md §1.4)
    response = client.generic(
        "POST",
        f"/servlet/api/chat/talk/{demo_bot.uuid}",
        "userInput=Bonjour 100% sûr&language=fr",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200


def test_a_json_body_is_accepted_and_bad_json_is_a_400(client, demo_bot):
    ok = client.post(
        f"/servlet/api/chat/talk/{demo_bot.uuid}", {"userInput": "Bonjour"}, content_type="application/json"
    )
    assert ok.status_code == 200
    bad = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", "{oops", content_type="application/json")
    assert_json_error(bad, 400, "INVALID_FIELD", "body")


def test_an_unknown_servlet_path_is_a_json_404(client):
    assert_json_error(client.post("/servlet/api/chat/nothing-here"), 404, "NOT_FOUND")


def test_a_method_the_endpoint_does_not_take_is_a_json_405(client, demo_bot):
    response = client.delete(f"/servlet/api/chat/talk/{demo_bot.uuid}")
    assert response.status_code == 405
    assert response.json()["code"]


def test_a_body_over_the_request_limit_is_a_413_json_error(client, demo_bot):
    before = stored()
    body = "userInput=" + "x" * (6 * 1024 * 1024)
    response = client.generic(
        "POST", f"/servlet/api/chat/talk/{demo_bot.uuid}", body, content_type="application/x-www-form-urlencoded"
    )
    assert_json_error(response, 413, "TOO_LARGE")
    assert stored() == before
