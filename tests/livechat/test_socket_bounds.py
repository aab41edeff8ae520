"""Websocket messages and sockets bounded on the real ASGI app (livechat/bounds.py): a chatbox frame or a
console action of exactly its path's limit is served, one byte more closes the socket with 1009 before the
consumer parses it; the largest legitimate frames fit; a process refuses the handshake past
WEBSOCKETS_PER_PROCESS and accepts again once a socket closes. tests/limits/test_sockets.py does the same
against real daphne and gunicorn + uvicorn processes, with hostile 15 MB frames."""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import ApplicationCommunicator, WebsocketCommunicator

from dialogs.models import Dialog
from livechat.bounds import SocketBounds, limit_for, server_message_max_bytes, sockets_per_process
from livechat.models import LivechatRequest
from tests.livechat.conftest import ADVISOR, ChatboxSocket, ConsoleSocket, b64, talk_frame

pytestmark = pytest.mark.django_db(transaction=True)

KB = 1024
CHAT_LIMIT = 32 * KB  # CHAT_FRAME_MAX_BYTES's default
CONSOLE_LIMIT = 32 * KB  # CONSOLE_FRAME_MAX_BYTES's default


def run(scenario):
    return async_to_sync(scenario)()


def padded(frame: dict, size: int) -> str:
    """The frame as JSON of exactly `size` UTF-8 bytes (JSON allows trailing whitespace)."""
    text = json.dumps(frame, ensure_ascii=False)
    missing = size - len(text.encode())
    assert missing >= 0, (len(text.encode()), size)
    return text + " " * missing


async def closed_with(communicator) -> dict:
    """The close the server sends next, past what was already on its way (a console's pushes)."""
    output = await communicator.receive_output(timeout=5)
    while output["type"] == "websocket.send":
        output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.close", output
    return output


def test_the_defaults_and_what_the_servers_are_told():
    assert limit_for("/servlet//chatWs").max_bytes == CHAT_LIMIT
    assert limit_for("/chatWs").setting == "CHAT_FRAME_MAX_BYTES"
    assert limit_for("/servlet/operator/ws").setting == "CONSOLE_FRAME_MAX_BYTES"
    assert limit_for("/bots/servlet/operator/ws", root_path="/bots").setting == "CONSOLE_FRAME_MAX_BYTES"
    assert server_message_max_bytes() == max(CHAT_LIMIT, CONSOLE_LIMIT)
    assert 0 < sockets_per_process() <= 20_000


def test_a_chatbox_frame_of_the_limit_is_served_and_one_byte_more_closes_the_socket(demo_bot):
    bot = str(demo_bot.uuid)
    frame = talk_frame(bot, "Bonjour")

    async def scenario():
        socket = await ChatboxSocket(bot).open()
        await socket.send(padded(frame, CHAT_LIMIT))
        answer = await socket.frame(timeout=30)
        await socket.send(padded(frame, CHAT_LIMIT + 1))
        closed = await closed_with(socket.communicator)
        await socket.communicator.wait()
        return answer, closed

    before = Dialog.objects.count()
    answer, closed = run(scenario)
    assert answer["type"] == "talkResponse"
    assert closed["code"] == 1009
    assert "CHAT_FRAME_MAX_BYTES" in closed["reason"]
    # Only the first talk made a dialog: the refused one was never handled.
    assert Dialog.objects.count() == before + 1


def test_the_limit_counts_utf8_bytes_not_characters(demo_bot):
    """Fewer characters than the limit, more bytes: refused, as the server counts the frame it reads."""
    bot = str(demo_bot.uuid)
    frame = talk_frame(bot, "Bonjour")
    frame["parameters"]["note"] = "é" * (CHAT_LIMIT // 2)

    async def scenario():
        socket = await ChatboxSocket(bot).open()
        text = json.dumps(frame, ensure_ascii=False)
        assert len(text) < CHAT_LIMIT < len(text.encode())
        await socket.send(text)
        closed = await closed_with(socket.communicator)
        await socket.communicator.wait()
        return closed

    assert run(scenario)["code"] == 1009


def test_the_largest_legitimate_chatbox_frame_is_served(demo_bot):
    """A talk as a SAML bot's chatbox sends it at its largest: a saml2_info of 12,000 characters (the most
    accounts/saml/tokens.py reads), 600 typed characters of three UTF-8 bytes each, a 2,000-character page
    address. (The demo bot has no SAML, so the token is ignored; its size is what counts here.)"""
    bot = str(demo_bot.uuid)
    frame = talk_frame(bot, "界" * 600)
    frame["parameters"]["saml2_info"] = b64("t" * 12_000)
    frame["parameters"]["userUrl"] = b64("https://shop.example/p?" + "q" * 1_977)

    async def scenario():
        socket = await ChatboxSocket(bot).open()
        text = json.dumps(frame)
        await socket.send(text)
        answer = await socket.frame(timeout=30)
        await socket.close()
        return len(text.encode()), answer

    size, answer = run(scenario)
    assert 20 * KB < size < CHAT_LIMIT
    assert answer["type"] == "talkResponse"


def test_the_console_sends_its_longest_message_and_is_closed_past_its_limit(team, visitor):
    visitor.ask_for_human(ADVISOR)
    request = LivechatRequest.objects.select_related("operator__user").get(dialog__uuid=visitor.context_id)
    longest = "界" * 4000  # console.js and livechat/operating.py stop at 4,000 characters

    async def scenario():
        console = await ConsoleSocket(request.operator).open()
        await console.until("state", timeout=30)
        await console.send({"action": "send", "dialog": request.pk, "text": longest, "ref": 1})
        sent = await console.until("sent", timeout=30)
        status = {"action": "status", "status": "available", "ref": 2}
        await console.send(padded(status, CONSOLE_LIMIT))
        at_limit = await console.until("operator", timeout=30)
        await console.send(padded(status, CONSOLE_LIMIT + 1))
        closed = await closed_with(console.communicator)
        await console.communicator.wait()
        return sent, at_limit, closed

    sent, at_limit, closed = run(scenario)
    assert sent["message"]["text"] == longest
    assert at_limit["ref"] == 2
    assert closed["code"] == 1009
    assert "CONSOLE_FRAME_MAX_BYTES" in closed["reason"]


def test_the_limits_are_settings(settings, demo_bot):
    settings.CHAT_FRAME_MAX_BYTES = 2 * KB
    bot = str(demo_bot.uuid)

    async def scenario():
        socket = await ChatboxSocket(bot).open()
        await socket.send(padded(talk_frame(bot, "Bonjour"), 2 * KB))
        answer = await socket.frame(timeout=30)
        await socket.send(padded(talk_frame(bot, "Bonjour"), 2 * KB + 1))
        closed = await closed_with(socket.communicator)
        await socket.communicator.wait()
        return answer, closed

    answer, closed = run(scenario)
    assert answer["type"] == "talkResponse"
    assert closed["code"] == 1009
    assert "2 KB" in closed["reason"]


def test_binary_messages_count_too(demo_bot):
    async def scenario():
        socket = await ChatboxSocket(str(demo_bot.uuid)).open()
        await socket.communicator.send_to(bytes_data=b"\0" * (CHAT_LIMIT + 1))
        closed = await closed_with(socket.communicator)
        await socket.communicator.wait()
        return closed

    assert run(scenario)["code"] == 1009


def test_a_process_refuses_sockets_past_its_count_and_accepts_again_when_one_closes(settings, demo_bot):
    # Room for two more than this test process already holds (another test's socket may still be open).
    settings.WEBSOCKETS_PER_PROCESS = SocketBounds.open_sockets + 2
    bot = str(demo_bot.uuid)

    async def scenario():
        from config.asgi import application

        first = await ChatboxSocket(bot).open()
        second = await ChatboxSocket(bot, path="/servlet/chatWs").open()
        refused = WebsocketCommunicator(application, "/chatWs")
        refused_answer = await refused.connect()
        await first.close()
        third = await ChatboxSocket(bot).open()
        # The sockets still open work.
        await third.talk("Bonjour")
        answer = await third.frame(timeout=30)
        await second.close()
        await third.close()
        return refused_answer, answer

    (connected, _code), answer = run(scenario)
    assert connected is False
    assert answer["type"] == "talkResponse"


def test_past_the_count_a_server_with_the_http_response_extension_answers_503(settings, demo_bot):
    """uvicorn offers `websocket.http.response`: the refusal is then the servlet's JSON error with a 503."""
    settings.WEBSOCKETS_PER_PROCESS = SocketBounds.open_sockets + 1
    bot = str(demo_bot.uuid)

    async def scenario():
        from config.asgi import application

        held = await ChatboxSocket(bot).open()
        scope = {
            "type": "websocket",
            "path": "/servlet/chatWs",
            "raw_path": b"/servlet/chatWs",
            "query_string": b"",
            "headers": [],
            "subprotocols": [],
            "extensions": {"websocket.http.response": {}},
        }
        refused = ApplicationCommunicator(application, scope)
        await refused.send_input({"type": "websocket.connect"})
        start = await refused.receive_output(timeout=5)
        body = await refused.receive_output(timeout=5)
        await refused.wait()
        await held.close()
        return start, body

    start, body = run(scenario)
    assert start["type"] == "websocket.http.response.start"
    assert start["status"] == 503
    headers = dict(start["headers"])
    assert headers[b"retry-after"] == b"5"
    assert headers[b"content-type"].startswith(b"application/json")
    error = json.loads(body["body"])
    assert error["code"] == "TOO_MANY_SOCKETS"
    assert error["retryAfter"] == 5
    assert "WEBSOCKETS_PER_PROCESS" in error["error"]
