"""The slot-filling flow over the chatbox websocket (the real ASGI app): the talk frame asks the day,
re-asks an invalid one, asks before leaving, stays on "non", and answers with both values."""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from config.asgi import application
from dialogs.models import Dialog
from tests.conftest import decode
from tests.livechat.conftest import talk_frame

from .conftest import next_weekday

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_slot_flow_over_the_websocket(demo_bot):
    bot = str(demo_bot.uuid)
    inputs = [
        "Je voudrais un rendez-vous",
        "n'importe quand",
        "Quels sont vos horaires d'ouverture ?",
        "non",
        "mardi",
        "06 12 34 56 78",
    ]

    async def scenario():
        communicator = WebsocketCommunicator(application, "/servlet/chatWs")
        connected, _ = await communicator.connect()
        assert connected
        answers, context_id = [], ""
        try:
            for text in inputs:
                await communicator.send_to(text_data=json.dumps(talk_frame(bot, text, context_id)))
                reply = json.loads(await communicator.receive_from(timeout=10))
                assert reply["type"] == "talkResponse"
                values = decode(reply["values"])
                context_id = values["contextId"]
                answers.append(values["text"])
        finally:
            await communicator.disconnect()
        return answers, context_id

    answers, context_id = async_to_sync(scenario)()
    day = "Quel jour vous conviendrait ? (par exemple « mardi » ou « 12/03 »)"
    assert answers == [
        f"Avec plaisir ! Il me faut deux informations.<hr/>{day}",
        f"Je n'ai pas reconnu de date. {day}",
        "Voulez-vous arrêter de répondre à mes questions pour passer à autre chose ?",
        day,
        "À quel numéro de téléphone pouvons-nous vous appeler ?",
        f"Rendez-vous noté le {next_weekday(1).isoformat()}, nous vous appellerons au 0612345678.",
    ]
    dialog = Dialog.objects.get(uuid=context_id)
    assert dialog.variables == {"jour": next_weekday(1).isoformat(), "telephone": "0612345678"}
    assert dialog.interactions.count() == len(inputs)
