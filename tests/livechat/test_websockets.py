"""Live chat over websockets on the real ASGI app (channels.testing): the chatbox's socket gets the
operator's messages and notifications pushed in the envelope of client-contract.md §4.2; the
operators' console acts and sees the visitor live; polling and the websocket give the same messages
in the same order."""

import json
from urllib.parse import quote

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from dialogs.models import Interaction
from livechat.models import LivechatRequest, Operator
from tests.livechat.conftest import ADVISOR, ChatboxSocket, ConsoleSocket, b64, common

pytestmark = pytest.mark.django_db(transaction=True)


def run(scenario):
    return async_to_sync(scenario)()


def test_an_operator_message_is_pushed_to_the_visitor_socket(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)

    async def scenario():
        socket = await ChatboxSocket(visitor.bot).open()
        check = await socket.follow(visitor.context_id)
        console = await ConsoleSocket(operator).open()
        state = await console.receive()
        sent = await console.act(action="send", dialog=request.pk, text="Bonjour, je suis là.", ref=7)
        pushed = await socket.frame()
        await socket.close()
        await console.close()
        return check, state, sent, pushed

    check, state, sent, pushed = run(scenario)
    assert check["type"] == "checkContextAvailabilityResponse"
    assert state["type"] == "state"
    assert [card["contextId"] for card in state["dialogs"]] == [visitor.context_id]
    # The console gets its own line back (the push to the operator's group, or the reply with its ref).
    assert sent["type"] in ("message", "sent")
    assert pushed["type"] == "talkResponse"
    assert pushed["text"] == "Bonjour, je suis là."
    assert pushed["human"] is True
    assert pushed["fromDetail"] == operator.name
    assert pushed["typeResponse"] == "OPRegularOperatorAnswer"


def test_a_whole_conversation_over_the_websocket(team, demo_bot):
    bot = str(demo_bot.uuid)

    async def scenario():
        socket = await ChatboxSocket(bot).open()
        await socket.talk(ADVISOR)
        start = await socket.frame()
        socket.context_id = start["contextId"]
        request = await database_sync_to_async(
            lambda: LivechatRequest.objects.select_related("operator__user").get(dialog__uuid=start["contextId"])
        )()
        console = await ConsoleSocket(request.operator).open()
        await console.until("state")
        # The visitor writes: nothing comes back to the visitor, the operator sees it at once.
        await socket.talk("Ma carte est bloquée")
        seen = await console.until("message")
        quiet = await socket.nothing()
        # The visitor types: the operator sees what is being typed.
        await socket.send(
            {"type": "typing", "parameters": common(bot, socket.context_id) | {"typing": True, "content": b64("merci")}}
        )
        typing = await console.until("typing")
        await console.send({"action": "typing", "dialog": request.pk, "typing": True})
        writing = await socket.frame()
        await console.send({"action": "send", "dialog": request.pk, "text": "C'est réglé."})
        answer = await socket.frame()
        await socket.send({"type": "reading", "parameters": common(bot, socket.context_id) | {"reading": True}})
        read = await console.until("read")
        await console.send({"action": "end", "dialog": request.pk})
        end = await socket.frame()
        # Back with the bot, over the same socket.
        await socket.talk("Quels sont vos horaires d'ouverture ?")
        bot_answer = await socket.frame()
        await socket.close()
        await console.close()
        return start, seen, quiet, typing, writing, answer, read, end, bot_answer

    start, seen, quiet, typing, writing, answer, read, end, bot_answer = run(scenario)
    assert start["typeResponse"] == "DMLiveChatConnectionSucceed"
    assert start["specialAction"] == "StartPolling"
    assert seen["message"]["from"] == "visitor"
    assert seen["message"]["user"] == "Ma carte est bloquée"
    assert quiet is True
    assert (typing["typing"], typing["content"]) == (True, "merci")
    assert (writing["type"], writing["code"]) == ("notification", "OperatorWritingStatus")
    assert writing["text"]
    assert answer["text"] == "C'est réglé."
    assert read["type"] == "read"
    assert end["typeResponse"] == "OPLiveChatEndByOperator"
    assert bot_answer["typeResponse"] == "DMUnderstoodQuestion"
    assert Interaction.objects.filter(human=True).count() == 1


def test_polling_and_the_websocket_give_the_same_messages_in_the_same_order(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    texts = ["Un", "Deux", "Trois", "Quatre"]

    async def scenario():
        socket = await ChatboxSocket(visitor.bot).open()
        await socket.follow(visitor.context_id)
        console = await ConsoleSocket(operator).open()
        await console.until("state")
        for text in texts:
            await console.send({"action": "send", "dialog": request.pk, "text": text})
        await console.send({"action": "end", "dialog": request.pk})
        pushed = [await socket.frame() for _ in range(len(texts) + 1)]
        await socket.close()
        await console.close()
        return pushed

    pushed = run(scenario)
    polled = visitor.poll_all()
    keys = ("text", "typeResponse", "pollUpdatedInteractionDate")
    assert [tuple(p.get(k) for k in keys) for p in pushed] == [tuple(p.get(k) for k in keys) for p in polled]
    assert [p["text"] for p in pushed[:4]] == texts


def test_a_socket_that_reconnects_gets_the_missed_messages_from_the_history(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)

    async def scenario():
        console = await ConsoleSocket(operator).open()
        await console.until("state")
        # Nobody's socket is open: the visitor reloads the page meanwhile.
        await console.act(action="send", dialog=request.pk, text="Vous êtes là ?")
        socket = await ChatboxSocket(visitor.bot).open()
        await socket.follow(visitor.context_id)
        await socket.send({"type": "history", "parameters": common(visitor.bot, visitor.context_id)})
        history = await socket.frame()
        await console.act(action="send", dialog=request.pk, text="Parfait.")
        live = await socket.frame()
        await socket.close()
        await console.close()
        return history, live

    history, live = run(scenario)
    assert history["type"] == "historyResponse"
    last = history["interactions"][-1]
    assert (last["text"], last["human"], last["fromDetail"]) == ("Vous êtes là ?", True, operator.name)
    assert live["text"] == "Parfait."


def test_the_console_refuses_who_may_not_operate(team, demo_bot):
    from config.asgi import application
    from tests.accounts.personas import make_persona

    reader, _ = make_persona(demo_bot.account, "reader", login="rita")

    async def scenario():
        console = ConsoleSocket(type("Reader", (), {"user": reader})())
        console.communicator = WebsocketCommunicator(application, console.path, headers=await console.headers())
        connected, _ = await console.communicator.connect()
        try:
            message = json.loads(await console.communicator.receive_from())
            closed = await console.communicator.receive_output()
        finally:
            # The refused consumer still listens on its channel layer until the socket's disconnect
            # reaches it; left to the event loop's teardown, which cancels every task at once, its
            # Redis read once never ended and hung CI's PostgreSQL + Redis run.
            await console.close()
        return connected, message, closed

    _connected, message, closed = run(scenario)
    assert message["code"] == "NOT_AN_OPERATOR"
    assert closed["type"] == "websocket.close"
    assert closed["code"] == 4403


def test_the_console_refuses_another_site(team):
    from config.asgi import application

    async def scenario():
        communicator = WebsocketCommunicator(
            application, "/servlet/operator/ws", headers=[(b"origin", b"https://evil.example")]
        )
        connected, _ = await communicator.connect()
        return connected

    assert run(scenario) is False


def test_console_actions_with_bad_input_get_a_clear_error_and_change_nothing(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    other = team.marc if operator == team.lea else team.lea

    async def scenario():
        console = await ConsoleSocket(other).open()
        await console.until("state")
        replies = [
            await console.act(action="send", dialog=request.pk, text="je ne suis pas son opérateur", ref=1),
            await console.act(action="send", dialog="abc", text="x", ref=2),
            await console.act(action="fly", ref=3),
            await console.act(action="status", status="sleeping", ref=4),
            await console.act(action="transfer", dialog=request.pk, competency="Assurances", ref=5),
        ]
        await console.send("not json")
        replies.append(await console.receive())
        await console.close()
        return replies

    replies = run(scenario)
    assert [r["type"] for r in replies] == ["error"] * 6
    assert [r.get("ref") for r in replies[:5]] == [1, 2, 3, 4, 5]
    assert [r["code"] for r in replies] == [
        "NOT_YOUR_DIALOG",
        "INVALID_FIELD",
        "INVALID_FIELD",
        "INVALID_FIELD",
        "NOT_YOUR_DIALOG",
        "BAD_REQUEST",
    ]
    request.refresh_from_db()
    assert request.operator_id == operator.pk
    assert not Interaction.objects.filter(human=True).exists()


def test_an_unknown_websocket_path_is_refused_cleanly(demo_bot):
    from config.asgi import application

    async def scenario():
        communicator = WebsocketCommunicator(application, "/servlet/nowhere")
        connected, code = await communicator.connect()
        return connected, code

    connected, _ = run(scenario)
    assert connected is False


def test_feedback_frames_are_stored_like_their_rest_twins(demo_bot):
    bot = str(demo_bot.uuid)

    async def scenario():
        socket = await ChatboxSocket(bot).open()
        await socket.talk("Comment faire opposition sur ma carte ?")
        answer = await socket.frame()
        context = answer["contextId"]
        base = common(bot, context)
        await socket.send({"type": "feedBack", "parameters": base | {"feedBack": b64("negative")}})
        await socket.send({"type": "feedBack", "parameters": base | {"choiceKey": b64("1")}})
        await socket.send({"type": "feedBack", "parameters": base | {"comment": b64("Trop long")}})
        quiet = await socket.nothing()
        await socket.close()
        return context, quiet

    context, quiet = run(scenario)
    assert quiet is True  # no reply expected
    rated = Interaction.objects.get(dialog__uuid=context)
    assert (rated.feedback, rated.feedback_choice_key, rated.feedback_comment) == ("negative", 1, "Trop long")


def test_a_survey_frame_gets_a_clear_notification(demo_bot):
    async def scenario():
        socket = await ChatboxSocket(str(demo_bot.uuid)).open()
        await socket.send(
            {"type": "surveyConfiguration", "parameters": common(str(demo_bot.uuid)) | {"surveyId": b64("s-1")}}
        )
        reply = await socket.frame()
        await socket.close()
        return reply

    reply = run(scenario)
    assert reply["type"] == "notification"
    assert reply["code"] == "ERRInvalidRequest"
    assert "survey" in reply["error"]


def test_chat_http_serves_a_frame_as_the_old_servlet_did(team, visitor):
    visitor.ask_for_human()
    frame = {
        "type": "talk",
        "parameters": common(visitor.bot, visitor.context_id) | {"userInput": b64("Bonjour, c'est urgent")},
    }
    response = visitor.client.get(f"/servlet/chatHttp?data={quote(json.dumps(frame))}")
    assert response.status_code == 200
    assert response.json() == {}  # a message to the operator has no bot answer
    assert Interaction.objects.filter(user_input="Bonjour, c'est urgent", type_response="LCVisitorMessage").exists()
    history = {"type": "history", "parameters": common(visitor.bot, visitor.context_id)}
    replayed = visitor.client.get(f"/chatHttp?data={quote(json.dumps(history))}").json()
    assert replayed["type"] == "historyResponse"
    bad = visitor.client.get("/servlet/chatHttp?data=%7Bnot%20json")
    assert (bad.status_code, bad.json()["code"]) == (400, "INVALID_FIELD")


def test_hostile_frames_get_an_error_and_the_sockets_stay_open(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    deep = "[" * 5000 + "]" * 5000

    async def scenario():
        socket = await ChatboxSocket(visitor.bot).open()
        await socket.send(deep)
        chatbox_error = await socket.frame()
        await socket.send("ping")
        pong = await socket.receive()
        console = await ConsoleSocket(operator).open()
        await console.until("state")
        await console.send(deep)
        console_error = await console.receive()
        await console.send({"action": "send", "dialog": request.pk, "text": "avec\x00un NUL"})
        sent = await console.until("sent")
        await socket.close()
        await console.close()
        return chatbox_error, pong, console_error, sent

    chatbox_error, pong, console_error, sent = run(scenario)
    assert chatbox_error["code"] == "ERRInvalidRequest"
    assert pong == "pong"
    assert console_error["code"] == "BAD_REQUEST"
    assert sent["message"]["text"] == "avecun NUL"


def test_leaving_the_queue_over_the_websocket_is_told_once(team, new_visitor, demo_bot):
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    new_visitor().ask_for_human()
    bot = str(demo_bot.uuid)

    async def scenario():
        socket = await ChatboxSocket(bot).open()
        await socket.talk(ADVISOR)
        queued = await socket.frame()
        socket.context_id = queued["contextId"]
        await socket.talk("#livechatleavequeue#")
        left = await socket.frame()
        quiet = await socket.nothing(0.5)
        await socket.close()
        return queued, left, quiet

    queued, left, quiet = run(scenario)
    assert queued["specialAction"] == "StartWaitingQueue"
    assert left["typeResponse"] == "DMLiveChatLeaveQueue"
    assert quiet is True
