"""The websockets while the database is unavailable, on the real ASGI app (channels.testing): every frame
is answered at once with a temporary-unavailability notice and a retry hint, as REST answers 503 with
Retry-After: the chatbox's talk gets ERRTemporarilyUnavailable with retryAfter and a text in the visitor's
language, its other frames the notice without a text, its pings their pong; the console's actions get
DATABASE_UNAVAILABLE with retryAfter and their ref; a console opened meanwhile is told and closed with
1013 (try again later). When the database answers again, everything is served as before.

The database fails as a stopped PostgreSQL makes it fail: every query raises Django's OperationalError
caused by the driver's "connection refused", and the process's database watch takes over (it probes
until a query succeeds again)."""

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper

import config.asgi  # at import: its django.setup() configures logging before the test, not under it
from bots.status import services
from livechat.models import LivechatRequest
from tests.livechat.conftest import ChatboxSocket, ConsoleSocket, b64, common, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


class DatabaseOutage:
    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch
        self.original = BaseDatabaseWrapper._cursor

    def stop(self):
        import psycopg

        def refused(wrapper, name=None):
            try:
                raise psycopg.OperationalError('connection to server at "127.0.0.1", port 5432 failed: refused')
            except psycopg.OperationalError as cause:
                raise OperationalError(str(cause)) from cause

        self.monkeypatch.setattr(BaseDatabaseWrapper, "_cursor", refused)

    def start(self):
        self.monkeypatch.setattr(BaseDatabaseWrapper, "_cursor", self.original)


@pytest.fixture
def database(monkeypatch):
    monkeypatch.setattr(services, "PROBE_SECONDS", 0.05)
    monkeypatch.setattr(services, "database", services.DatabaseWatch())  # this test's own watch
    outage = DatabaseOutage(monkeypatch)
    yield outage
    outage.start()
    watch = services.database
    if watch._thread is not None:
        watch._thread.join(timeout=10)
    assert watch.down() is None


def run(scenario):
    return async_to_sync(scenario)()


def test_every_socket_is_told_at_once_and_served_again_when_the_database_is_back(team, visitor, database):
    visitor.ask_for_human()
    request = LivechatRequest.objects.select_related("operator__user").get(dialog__uuid=visitor.context_id)

    async def scenario():
        chatbox = await ChatboxSocket(visitor.bot).open()
        await chatbox.talk("Quels sont vos horaires d'ouverture ?")
        before = await chatbox.frame()
        chatbox.context_id = before["contextId"]
        english = await ChatboxSocket(visitor.bot).open()
        console = await ConsoleSocket(request.operator).open()
        await console.until("state")
        cookie = await database_sync_to_async(session_cookie)(request.operator.user)  # a session of before

        database.stop()
        # The first frame meets the failure (the watch starts), the next ones are answered without trying.
        await chatbox.talk("Comment faire un virement ?")
        talk = await chatbox.frame()
        await chatbox.send({"type": "typing", "parameters": common(visitor.bot, chatbox.context_id) | {"typing": True}})
        typing = await chatbox.frame()
        await chatbox.send("ping")
        pong = await chatbox.receive()
        frame = {"type": "talk", "parameters": common(visitor.bot) | {"userInput": b64("Hello"), "language": b64("en")}}
        await english.send(frame)
        english_talk = await english.frame()
        await console.send({"action": "send", "dialog": request.pk, "text": "Bonjour", "ref": 9})
        action = await console.receive()
        down_while = services.database_down()
        headers = [(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)]
        refused = WebsocketCommunicator(config.asgi.application, "/servlet/operator/ws", headers=headers)
        accepted, _ = await refused.connect()
        told = await refused.receive_json_from(timeout=5)
        closed = await refused.receive_output(timeout=5)

        database.start()
        watch = services.database
        while watch.down() is not None:  # its probe succeeds a moment later
            await asyncio.sleep(0.05)
        await chatbox.talk("Combien coûte le compte ?")
        after = await chatbox.frame()
        await console.send({"action": "send", "dialog": request.pk, "text": "Bonjour", "ref": 10})
        sent = await console.until("sent")
        for socket in (chatbox, english, console):
            await socket.close()
        return before, talk, typing, pong, english_talk, action, down_while, accepted, told, closed, after, sent

    before, talk, typing, pong, english_talk, action, down_while, accepted, told, closed, after, sent = run(scenario)
    assert before["type"] == "talkResponse"
    assert down_while == services.DATABASE_DOWN
    # The chatbox: a notice with the retry hint, shown to the visitor (its text) for a talk only.
    assert talk["type"] == "notification"
    assert (talk["code"], talk["retryAfter"]) == ("ERRTemporarilyUnavailable", services.RETRY_AFTER_SECONDS)
    assert talk["text"] == "Le service est momentanément indisponible. Réessayez dans quelques secondes."
    assert "database is unavailable" in talk["error"]
    assert (typing["code"], typing["retryAfter"]) == ("ERRTemporarilyUnavailable", services.RETRY_AFTER_SECONDS)
    assert "text" not in typing
    assert pong == "pong"
    assert english_talk["text"] == "The service is temporarily unavailable. Please try again in a few seconds."
    # The console: its action's error, with its ref; a console opened meanwhile is told, then closed.
    assert action == {
        "type": "error",
        "code": "DATABASE_UNAVAILABLE",
        "error": "The database is unavailable; try again in a few seconds.",
        "retryAfter": services.RETRY_AFTER_SECONDS,
        "ref": 9,
    }
    assert accepted is True
    assert (told["code"], told["retryAfter"]) == ("DATABASE_UNAVAILABLE", services.RETRY_AFTER_SECONDS)
    assert closed == {"type": "websocket.close", "code": 1013}
    # Back: served as before, and nothing was written meanwhile.
    assert after["type"] == "talkResponse" and after["typeResponse"] == "DMUnderstoodQuestion"
    assert sent["message"]["text"] == "Bonjour"
    assert request.dialog.interactions.filter(user_input="Comment faire un virement ?").count() == 0
