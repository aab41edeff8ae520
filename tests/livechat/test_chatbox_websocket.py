"""The chatbox websocket on the real ASGI app (client-contract.md §4.2): ping/pong, talk, context
check and history frames, at every path the chatbox may use."""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from config.asgi import application
from dialogs.models import Dialog
from tests.conftest import decode
from tests.livechat.conftest import b64, common, talk_frame

pytestmark = pytest.mark.django_db(transaction=True)


def run(path: str, scenario, subprotocols=None):
    async def go():
        communicator = WebsocketCommunicator(application, path, subprotocols=subprotocols)
        connected, subprotocol = await communicator.connect()
        assert connected
        try:
            return await scenario(communicator), subprotocol
        finally:
            await communicator.disconnect()

    return async_to_sync(go)()


async def exchange(communicator, frame: dict) -> dict:
    await communicator.send_to(text_data=json.dumps(frame))
    return json.loads(await communicator.receive_from(timeout=10))


@pytest.mark.parametrize("path", ["/servlet//chatWs", "/servlet/chatWs", "/chatWs"])
def test_ping_gets_pong_at_every_path(demo_bot, path):
    async def scenario(communicator):
        await communicator.send_to(text_data="ping")
        return await communicator.receive_from(timeout=5)

    reply, _ = run(path, scenario)
    assert reply == "pong"


def test_the_svcchat_subprotocol_is_accepted_when_offered(demo_bot):
    async def scenario(communicator):
        return None

    _, subprotocol = run("/servlet/chatWs", scenario, subprotocols=["svcchat"])
    assert subprotocol == "svcchat"


def test_a_conversation_over_the_websocket(demo_bot):
    bot = str(demo_bot.uuid)

    async def scenario(communicator):
        first = await exchange(communicator, talk_frame(bot, "Comment faire un virement ?"))
        context_id = decode(first["values"])["contextId"]
        second = await exchange(communicator, talk_frame(bot, "Combien coûte le compte ?", context_id))
        check = await exchange(
            communicator, {"type": "checkContextAvailability", "parameters": common(bot, context_id)}
        )
        history = await exchange(
            communicator, {"type": "history", "parameters": common(bot, context_id) | {"dialog": b64(context_id)}}
        )
        return first, second, check, history

    (first, second, check, history), _ = run("/servlet//chatWs", scenario)
    assert first["type"] == "talkResponse"
    answer = decode(first["values"])
    assert "Nouveau virement" in answer["text"]
    assert decode(second["values"])["contextId"] == answer["contextId"]
    assert decode(check["values"]) == {"isContextStillAvailable": True}
    assert history["type"] == "historyResponse"
    assert [i["user"] for i in decode(history["values"])["interactions"]] == [
        "Comment faire un virement ?",
        "Combien coûte le compte ?",
    ]
    assert Dialog.objects.get(uuid=answer["contextId"]).interactions.count() == 2


def test_bad_frames_get_a_json_notification_and_the_socket_stays_open(demo_bot):
    async def scenario(communicator):
        replies = [
            await exchange(communicator, {"type": "talk", "parameters": {"botId": b64("nope")}}),
            await exchange(communicator, {"type": "dance", "parameters": common(str(demo_bot.uuid))}),
        ]
        await communicator.send_to(text_data="{not json")
        replies.append(json.loads(await communicator.receive_from(timeout=5)))
        await communicator.send_to(text_data="ping")
        replies.append(await communicator.receive_from(timeout=5))
        return replies

    replies, _ = run("/chatWs", scenario)
    for reply in replies[:3]:
        assert reply["type"] == "notification"
        assert decode(reply["values"])["code"] == "ERRInvalidRequest"
    assert replies[3] == "pong"
    assert Dialog.objects.count() == 0


def test_top_knowledge_over_the_websocket(demo_bot):
    bot = str(demo_bot.uuid)

    async def scenario(communicator):
        await exchange(communicator, talk_frame(bot, "Comment faire un virement ?"))
        parameters = common(bot) | {"maxKnowledge": b64("3"), "period": b64("Last30Days")}
        return await exchange(communicator, {"type": "topknowledge", "parameters": parameters})

    reply, _ = run("/servlet//chatWs", scenario)
    assert reply["type"] == "topKnowledgeResponse"
    articles = json.loads(decode(reply["values"])["knowledgeArticles"])
    # The featured questions first (this one among them), with their usage in the period.
    assert [(a["reword"], a["usage"]) for a in articles] == [
        ("Quels sont vos horaires d'ouverture ?", 0),
        ("J'ai perdu ma carte", 0),
        ("Comment faire un virement ?", 1),
    ]
