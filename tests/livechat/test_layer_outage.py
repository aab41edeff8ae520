"""Live chat while its channel layer (Redis) is unreachable, on the real ASGI app (channels.testing): the
chatbox's socket talks with the bot through the outage and a socket opened during it is served; the
operators' console stays open and is told it is degraded, then restored with its whole state; the
sockets join their groups again, so pushes arrive again; nobody is handed to an operator meanwhile; the
server status says Warning and names Redis; the log says it once, and once more when it is over.

The outage is the layer's own: while it lasts every call of the layer the server uses fails as redis-py
fails when Redis is stopped (ConnectionError), reads already waiting included, and the groups Redis kept
are forgotten (a restarted Redis keeps nothing). tests/faults/test_redis_down_websockets.py stops a real
Redis under real server processes."""

import asyncio
import logging

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import ConnectionError as RedisConnectionError

import config.asgi  # noqa: F401  (its django.setup() configures logging: before caplog, not under it)
from bots.status import report
from dialogs.contexts import parse_context_id
from livechat import layer_health
from livechat.delivery import dialog_group
from livechat.layer_health import health, probe
from livechat.models import LivechatRequest, Operator
from tests.accounts.personas import make_persona
from tests.livechat.conftest import ChatboxSocket, ConsoleSocket

pytestmark = pytest.mark.django_db(transaction=True)

API = "/servlet/api"
UNREACHABLE = "channel layer is unreachable"
BACK = "channel layer answers again"


class LayerOutage:
    """The channel layer's Redis, stopped and started again as the server sees it."""

    def __init__(self, monkeypatch):
        self.layer = get_channel_layer()
        self.down = False
        self.cuts: set[asyncio.Event] = set()  # one per read waiting on the layer
        for name in ("send", "group_add", "group_discard", "group_send"):
            monkeypatch.setattr(self.layer, name, self._failing(getattr(self.layer, name)))
        monkeypatch.setattr(self.layer, "receive", self._receive(self.layer.receive))

    def _refused(self):
        return RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    def _failing(self, call):
        async def failing(*args, **kwargs):
            if self.down:
                raise self._refused()
            return await call(*args, **kwargs)

        return failing

    def _receive(self, receive):
        async def cut_short(channel):
            if self.down:
                raise self._refused()
            cut = asyncio.Event()
            self.cuts.add(cut)
            read = asyncio.ensure_future(receive(channel))
            stopped = asyncio.ensure_future(cut.wait())
            try:
                await asyncio.wait({read, stopped}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self.cuts.discard(cut)
                stopped.cancel()
            if read.done():
                return read.result()
            read.cancel()
            raise RedisConnectionError("Connection closed by server.")

        return cut_short

    async def stop(self, forgetting=()):
        """Redis stops: waiting reads fail, and the groups named are gone when it comes back."""
        self.down = True
        for cut in list(self.cuts):
            cut.set()
        for group in forgetting:
            if hasattr(self.layer, "groups"):  # the in-memory layer
                self.layer.groups.pop(group, None)
            else:  # channels_redis: the group's sorted set
                await self.layer.connection(self.layer.consistent_hash(group)).delete(self.layer._group_key(group))

    def start(self):
        self.down = False


@pytest.fixture
def outage(monkeypatch):
    outage = LayerOutage(monkeypatch)
    yield outage
    outage.start()
    monkeypatch.undo()
    async_to_sync(probe)()  # the next test meets a layer that answers
    assert not health.is_down()


def layer_lines(caplog) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "livechat.layer_health"]


def run(scenario):
    return async_to_sync(scenario)()


def assigned(context_id: str) -> LivechatRequest:
    return LivechatRequest.objects.select_related("operator__user").get(dialog__uuid=context_id)


def test_sockets_are_served_through_an_outage_and_get_their_pushes_again_after_it(team, visitor, outage, caplog):
    caplog.set_level(logging.INFO, logger="livechat.layer_health")
    visitor.ask_for_human()
    request = assigned(visitor.context_id)
    group = dialog_group(parse_context_id(visitor.context_id))

    async def scenario():
        live = await ChatboxSocket(visitor.bot).open()
        await live.follow(visitor.context_id)  # the visitor's socket joins its dialog's group
        talker = await ChatboxSocket(visitor.bot).open()
        console = await ConsoleSocket(request.operator).open()
        await console.until("state")

        await outage.stop(forgetting=[group])
        await console.until("degraded")
        # The bot goes on over the sockets that were open, and over one opened now.
        await talker.talk("Quels sont vos horaires d'ouverture ?")
        during = await talker.frame()
        await live.send("ping")
        pong = await live.receive()
        newcomer = await ChatboxSocket(visitor.bot).open()
        await newcomer.talk("Comment faire un virement ?")
        new_answer = await newcomer.frame()
        # The operator still acts (the message is stored); the visitor's socket cannot be pushed to now.
        await console.send({"action": "send", "dialog": request.pk, "text": "Toujours là ?", "ref": 1})
        sent = await console.until("sent")
        missed = await live.nothing(timeout=0.5)
        late_console = await ConsoleSocket(request.operator).open()
        late_state = await late_console.until("state")
        late_told = await late_console.until("degraded")

        outage.start()
        restored = await console.until("restored", timeout=20)
        state = await console.until("state")
        await late_console.until("restored", timeout=20)
        # What the visitor's socket missed comes first (it is in its group again, and is sent what was
        # stored meanwhile), then the next push.
        replayed = await live.frame(timeout=10)
        await console.send({"action": "send", "dialog": request.pk, "text": "Je suis de retour.", "ref": 2})
        pushed = await live.frame(timeout=10)
        once = await live.nothing(timeout=0.5)
        await talker.talk("Combien coûte le compte ?")
        after = await talker.frame()
        for socket in (live, talker, newcomer, console, late_console):
            await socket.close()
        return (
            during,
            pong,
            new_answer,
            sent,
            missed,
            late_state,
            late_told,
            restored,
            state,
            replayed,
            pushed,
            once,
            after,
        )

    (during, pong, new_answer, sent, missed, late_state, late_told, restored, state, replayed, pushed, once, after) = (
        run(scenario)
    )
    assert during["type"] == "talkResponse" and during["typeResponse"] == "DMUnderstoodQuestion"
    assert pong == "pong"
    assert new_answer["type"] == "talkResponse" and "virement" in new_answer["text"].lower()
    assert sent["message"]["text"] == "Toujours là ?"  # stored: the poll and the history have it
    assert missed is True
    assert late_state["type"] == "state" and "Redis" in late_told["error"]
    assert restored == {"type": "restored"}
    assert [card["id"] for card in state["dialogs"]] == [request.pk]
    assert (replayed["type"], replayed["text"], replayed["human"]) == ("talkResponse", "Toujours là ?", True)
    assert (pushed["type"], pushed["text"], pushed["human"]) == ("talkResponse", "Je suis de retour.", True)
    assert once is True  # each message once: the replay and the pushes do not repeat one another
    assert replayed["pollUpdatedInteractionDate"] < pushed["pollUpdatedInteractionDate"]
    assert after["type"] == "talkResponse"
    # One line when the layer failed, one when it answered again: no line per socket or per call.
    lines = layer_lines(caplog)
    assert [level for level, _ in lines] == ["WARNING", "INFO"], lines
    assert UNREACHABLE in lines[0][1] and BACK in lines[1][1]


def test_nobody_is_handed_over_while_the_layer_is_down_and_the_status_names_redis(
    client, team, visitor, new_visitor, demo_bot, outage, monkeypatch, settings
):
    # Each talk looks again (a process trusts what it last saw for a few seconds).
    monkeypatch.setattr(layer_health, "FRESH_SECONDS", 0)
    monkeypatch.setattr(layer_health, "DOWN_RECHECK_SECONDS", 0)
    _, admin = make_persona(demo_bot.account, "administrator", login="ada")
    async_to_sync(outage.stop)()

    refused = visitor.ask_for_human()
    assert refused["typeResponse"] != "DMLiveChatConnectionSucceed"
    assert "Aucun conseiller n'est disponible" in refused["text"]
    assert refused["livechat"] == "no_operator"
    # Nobody was handed over: the request is only counted as missed (ended at once).
    missed = LivechatRequest.objects.get()
    assert (missed.status, missed.end_reason) == ("ended", "nobody_available")
    available = client.post(f"{API}/operators/available/{demo_bot.uuid}").json()
    assert available["available"] is False
    assert available["byCompetency"]["*"]["online"] == 2  # the operators are there; they cannot be reached
    report.forget()
    status = client.get(f"{API}/serverstatus?details=true", HTTP_AUTHORIZATION=admin).json()
    livechat = status["applications"]["livechat"]
    assert livechat["status"] == "Warning", livechat
    # Redis in CI's PostgreSQL + Redis run; the embedded run's in-memory layer is named as such.
    name = "(Redis)" if settings.REDIS_URL else "(InMemoryChannelLayer)"
    assert name in livechat["customs"]["reason"] and "unreachable" in livechat["customs"]["reason"]
    assert {"application": "livechat", "status": "Warning", "reason": livechat["customs"]["reason"]} in status[
        "problems"
    ]

    outage.start()
    back = new_visitor().ask_for_human()
    assert back["typeResponse"] == "DMLiveChatConnectionSucceed"
    assert client.post(f"{API}/operators/available/{demo_bot.uuid}").json()["available"] is True
    report.forget()
    assert client.get(f"{API}/serverstatus?details=true", HTTP_AUTHORIZATION=admin).json()["status"] == "Ok"


def test_binary_frames_get_an_error_frame_and_the_sockets_stay_open(team, visitor):
    visitor.ask_for_human()
    request = assigned(visitor.context_id)

    async def scenario():
        chatbox = await ChatboxSocket(visitor.bot).open()
        await chatbox.communicator.send_to(bytes_data=b'{"type": "talk"}')
        chatbox_error = await chatbox.frame()
        await chatbox.send("ping")
        pong = await chatbox.receive()
        console = await ConsoleSocket(request.operator).open()
        await console.until("state")
        await console.communicator.send_to(bytes_data=b"\x00\xff binary")
        console_error = await console.receive()
        await console.send({"action": "heartbeat"})
        await console.send({"action": "status", "status": "available", "ref": 3})
        still = await console.until("operator")
        await chatbox.close()
        await console.close()
        return chatbox_error, pong, console_error, still

    chatbox_error, pong, console_error, still = run(scenario)
    assert chatbox_error["type"] == "notification"
    assert chatbox_error["code"] == "ERRInvalidRequest"
    assert "binary" in chatbox_error["error"]
    assert pong == "pong"
    assert (console_error["type"], console_error["code"]) == ("error", "BAD_REQUEST")
    assert "text frames" in console_error["error"]
    assert still["ref"] == 3
    assert Operator.objects.get(pk=request.operator_id).status == "available"


def test_the_queue_is_not_given_out_while_the_layer_is_down(team, new_visitor, outage):
    """dispatch (the clocks, an operator's status change) hands no queued visitor to a console that cannot
    hear of it; once the layer answers, the next pass does."""
    from livechat.assignment import dispatch

    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    new_visitor().ask_for_human()
    waiting = new_visitor()
    assert waiting.ask_for_human()["queuePosition"] == 1
    Operator.objects.filter(pk=team.marc.pk).update(status="available")  # room appears during the outage

    run(outage.stop)
    assert not async_to_sync(probe)()
    assert dispatch(team.account.pk) == 0
    assert waiting.live_request().status == LivechatRequest.Status.QUEUED

    outage.start()
    assert async_to_sync(probe)()
    assert dispatch(team.account.pk) == 1
    assert assigned(waiting.context_id).operator_id == team.marc.pk
