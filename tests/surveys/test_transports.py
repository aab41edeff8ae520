"""Survey frames (client-contract.md §2.2 (21), §4.2): surveyConfiguration and survey over the real ASGI
websocket, and the survey answer through /chatHttp?data=… (CV5's polling form), stored like chat/survey's."""

import json
from urllib.parse import quote

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from config.asgi import application
from dialogs.models import SurveyAnswer
from tests.conftest import decode
from tests.livechat.conftest import b64, common, talk_frame

from .conftest import configuration, fields_by_label


def survey_frame(bot_uuid, context_id, survey_id, fields: dict, **extra) -> dict:
    parameters = common(bot_uuid, context_id) | {
        "surveyId": b64(survey_id),
        "interactionSurveyAnswer": False,
        "fields": {str(key): b64(value) for key, value in fields.items()},
        "solutionUsed": b64("LIVECHAT"),
        **extra,
    }
    return {"type": "survey", "parameters": parameters}


@pytest.mark.django_db
def test_survey_answer_through_chathttp(client, chatbox, satisfaction):
    chatbox.talk("Je veux donner mon avis")
    by_label = fields_by_label(configuration(client, chatbox.bot, str(satisfaction.uuid)))
    satisfied = by_label["Êtes-vous satisfait de la réponse ?"]["id"]
    remark = by_label["Une remarque, une suggestion ?"]["id"]
    frame = survey_frame(
        chatbox.bot,
        chatbox.context_id,
        str(satisfaction.uuid),
        {satisfied: "Peu satisfait", remark: "Trop lent & trop long"},
        reword=None,
        operator=None,
    )
    response = client.get(f"/servlet/chatHttp?data={quote(json.dumps(frame))}")
    assert response.status_code == 200, response.content
    assert response.json()["type"] == "surveyResponse"
    stored = SurveyAnswer.objects.get()
    assert stored.transport == "chatHttp" and str(stored.dialog.uuid) == chatbox.context_id
    assert list(stored.values.values_list("value", flat=True)) == ["Peu satisfait", "Trop lent & trop long"]

    # A missing mandatory field: 400 naming it, nothing more stored.
    frame = survey_frame(chatbox.bot, chatbox.context_id, str(satisfaction.uuid), {remark: "encore"})
    refused = client.get(f"/chatHttp?data={quote(json.dumps(frame))}")
    assert (refused.status_code, refused.json()["field"]) == (400, f"field_{satisfied}")
    assert SurveyAnswer.objects.count() == 1

    configuration_frame = {
        "type": "surveyConfiguration",
        "parameters": common(chatbox.bot, chatbox.context_id) | {"surveyId": b64(str(satisfaction.uuid))},
    }
    answer = client.get(f"/servlet/chatHttp?data={quote(json.dumps(configuration_frame))}").json()
    assert answer["type"] == "surveyConfigurationResponse"
    assert decode(answer["values"])["title"] == "Votre avis sur Clara"


@pytest.mark.django_db(transaction=True)
def test_survey_frames_over_the_websocket(demo_bot, satisfaction):
    bot = str(demo_bot.uuid)
    survey_id = str(satisfaction.uuid)

    async def exchange(communicator, frame):
        await communicator.send_to(text_data=json.dumps(frame))
        return json.loads(await communicator.receive_from(timeout=10))

    async def go():
        communicator = WebsocketCommunicator(application, "/servlet/chatWs")
        connected, _ = await communicator.connect()
        assert connected
        try:
            talked = decode((await exchange(communicator, talk_frame(bot, "Je veux donner mon avis")))["values"])
            context_id = talked["contextId"]
            config = await exchange(
                communicator,
                {
                    "type": "surveyConfiguration",
                    "parameters": common(bot, context_id) | {"surveyId": b64(talked["survey"])},
                },
            )
            values = decode(config["values"])
            by_label = {field["label"]: field for field in values["fields"]}
            topics = by_label["Sur quels sujets ?"]
            answered = await exchange(
                communicator,
                survey_frame(
                    bot,
                    context_id,
                    survey_id,
                    {
                        by_label["Êtes-vous satisfait de la réponse ?"]["id"]: "Satisfait",
                        topics["id"]: "Virements",
                    },
                    operator=b64("Léa"),
                ),
            )
            wrong = await exchange(
                communicator,
                survey_frame(
                    bot, context_id, survey_id, {by_label["Êtes-vous satisfait de la réponse ?"]["id"]: "Bof"}
                ),
            )
            return talked, config, values, answered, wrong, context_id
        finally:
            await communicator.disconnect()

    talked, config, values, answered, wrong, context_id = async_to_sync(go)()
    assert talked["survey"] == survey_id
    assert config["type"] == "surveyConfigurationResponse" and values["contextId"] == context_id
    assert answered["type"] == "surveyResponse"
    assert wrong["type"] == "notification" and decode(wrong["values"])["code"] == "ERRInvalidRequest"
    stored = SurveyAnswer.objects.get()
    assert (stored.transport, stored.operator, str(stored.dialog.uuid)) == ("websocket", "Léa", context_id)
    assert sorted(stored.values.values_list("value", flat=True)) == ["Satisfait", "Virements"]
