"""Live chat across real server processes sharing one database and one Redis channel layer (the CI's
PostgreSQL + Redis run uses the machine's services; the embedded run a SQLite file and a private
Redis): a visitor on one process and an operator on another talk normally, the queue is one queue,
idle websockets stay open (channels_redis reads block 5 s: a Redis socket timeout of 5 s used to close
every idle socket with 1011), and the server status counts them."""

import json
import os
import shutil
import time
from contextlib import ExitStack

import pytest
from websockets.sync.client import connect

from tests.conftest import decode
from tests.livechat.conftest import ADVISOR, b64
from tests.servers import BOT_UUID, Browser, Platform

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL") and shutil.which("redis-server") is None,
    reason="needs REDIS_URL, or redis-server to start a Redis of its own",
)


class Visitor:
    """The chatbox's websocket on one server process."""

    def __init__(self, server, sockets: ExitStack):
        self.socket = sockets.enter_context(connect(server.ws_url("/servlet//chatWs"), open_timeout=10))
        self.context_id = ""

    def frame(self, timeout: float = 10) -> dict:
        while True:
            text = self.socket.recv(timeout=timeout)
            if text != "pong":
                frame = json.loads(text)
                return {"type": frame["type"], **decode(frame["values"])}

    def talk(self, text: str):
        parameters = {
            "contextId": b64(self.context_id),
            "botId": b64(BOT_UUID),
            "space": b64("Defaut"),
            "language": b64("fr"),
            "solutionUsed": b64("ASSISTANT"),
            "userInput": b64(text),
            "extraParameters": {},
        }
        self.socket.send(json.dumps({"type": "talk", "parameters": parameters}))

    def ask_for_human(self) -> dict:
        self.talk(ADVISOR)
        answer = self.frame()
        self.context_id = answer["contextId"]
        return answer

    def ping(self) -> str:
        self.socket.send("ping")
        return self.socket.recv(timeout=10)


class Console:
    """An operator's console on one server process, logged in through the back office's login form."""

    def __init__(self, server, login: str, password: str, sockets: ExitStack):
        cookie = Browser(server).log_in(login, password)
        self.socket = sockets.enter_context(
            connect(
                server.ws_url("/servlet/operator/ws"),
                additional_headers={"Cookie": cookie, "Origin": server.base},
                open_timeout=10,
            )
        )
        self.state = self.until("state")

    def send(self, **action):
        self.socket.send(json.dumps(action))

    def until(self, kind: str, timeout: float = 10, where=lambda message: True) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("type") == kind and where(message):
                return message
            if message.get("type") == "error":
                raise AssertionError(message)


def test_a_visitor_and_an_operator_on_two_processes_talk_and_share_one_queue(tmp_path):
    with Platform(tmp_path / "platform", processes=2, redis=True) as platform, ExitStack() as sockets:
        a, b = platform.servers
        platform.add_operator("lea", "lea-pass-2026-x", max_dialogs=1, display_name="Léa")
        console = Console(b, "lea", "lea-pass-2026-x", sockets)
        console.send(action="status", status="available")
        console.until("operator")

        first = Visitor(a, sockets)
        start = first.ask_for_human()
        assert start["typeResponse"] == "DMLiveChatConnectionSucceed"
        assert start["specialAction"] == "StartPolling"
        dialog = console.until("dialog")["dialog"]
        assert dialog["contextId"] == first.context_id

        # The queue is one queue: a visitor on each process waits, in arrival order.
        second, third = Visitor(b, sockets), Visitor(a, sockets)
        assert second.ask_for_human()["queuePosition"] == 1
        assert third.ask_for_human()["queuePosition"] == 2

        # Idle sockets stay open well past the Redis layer's 5 s blocking read.
        time.sleep(31)
        for socket in (first, second, third):
            assert socket.ping() == "pong"

        # Operator (process B) → visitor (process A), and back.
        console.send(action="send", dialog=dialog["id"], text="Bonjour, ici Léa.")
        message = first.frame()
        assert (message["text"], message["human"], message["fromDetail"]) == ("Bonjour, ici Léa.", True, "Léa")
        first.talk("Ma carte ne marche plus")
        seen = console.until("message", where=lambda m: m["message"]["from"] == "visitor")
        assert seen["message"]["user"] == "Ma carte ne marche plus"

        status = Browser(a).get_json("/servlet/api/serverstatus?details=true", token=platform.admin_token())
        assert status["applications"]["livechat"]["status"] == "Ok", status["applications"]["livechat"]
        assert status["applications"]["livechat"]["customs"]["channelLayer"] == "redis"
        assert status["volumes"]["connectedOperators"] == 1
        assert status["volumes"]["currentLivechatDialogs"] == 1
        assert status["applications"]["livechat"]["customs"]["queue"]["waiting"] == 2

        # Ending it frees Léa's slot: the first in the queue (on process B) gets her; the other moves up.
        console.send(action="end", dialog=dialog["id"])
        assert first.frame()["typeResponse"] == "OPLiveChatEndByOperator"
        taken = second.frame()
        assert taken["code"] == "DialogAddedOperatorPanel"
        moved = third.frame()
        assert (moved["code"], moved["queuePosition"]) == ("NAWaitingForOperator", 1)
        assert console.until("dialog")["dialog"]["contextId"] == second.context_id

        logs = a.output() + b.output()
        assert "Traceback" not in logs, logs[-3000:]


def test_a_killed_server_process_s_operator_goes_offline_and_the_visitor_is_told(tmp_path):
    """The operator's console was on process B, which dies: process A's clocks notice the console is
    gone after the grace period, tell the visitor, and put the dialog back in the queue."""
    with (
        Platform(tmp_path / "platform", processes=2, redis=True, grace_seconds=3, timer_seconds=0.5) as platform,
        ExitStack() as sockets,
    ):
        a, b = platform.servers
        platform.add_operator("marc", "marc-pass-2026-x")
        console = Console(b, "marc", "marc-pass-2026-x", sockets)
        console.send(action="status", status="available")
        console.until("operator")
        visitor = Visitor(a, sockets)
        assert visitor.ask_for_human()["typeResponse"] == "DMLiveChatConnectionSucceed"

        b.kill()
        notices = [visitor.frame(timeout=15), visitor.frame(timeout=15)]
        assert notices[0]["code"] == "OperatorDisconnected"
        assert (notices[1]["code"], notices[1]["queuePosition"]) == ("NAWaitingForOperator", 1)
        status = Browser(a).get_json("/servlet/api/serverstatus?details=true", token=platform.admin_token())
        assert status["volumes"]["connectedOperators"] == 0


def test_concurrent_requests_for_a_human_on_one_dialog_open_one_live_chat(tmp_path):
    """Twenty talks of one dialog at once, on two processes, all asking for a human: every one is
    answered, one live chat opens, and the operator's slot is counted once."""
    from concurrent.futures import ThreadPoolExecutor

    with Platform(tmp_path / "platform", processes=2, redis=True) as platform, ExitStack() as sockets:
        a, b = platform.servers
        platform.add_operator("lea", "lea-pass-2026-x")
        console = Console(b, "lea", "lea-pass-2026-x", sockets)
        console.send(action="status", status="available")
        console.until("operator")
        start = Browser(a).post_form(f"/servlet/api/chat/talk/{BOT_UUID}", {"userInput": "Bonjour"})
        context = decode(start["values"])["contextId"]

        def ask(index):
            server = (a, b)[index % 2]
            return Browser(server).post_form(f"/servlet/api/chat/talk/{BOT_UUID}/{context}", {"userInput": ADVISOR})

        with ThreadPoolExecutor(max_workers=20) as pool:
            answers = [decode(body["values"]) for body in pool.map(ask, range(20))]

        assert {answer["contextId"] for answer in answers} == {context}
        token = platform.admin_token()
        status = Browser(a).get_json("/servlet/api/serverstatus?details=true", token=token)
        assert status["volumes"]["currentLivechatDialogs"] == 1
        team = Browser(a).get_json("/servlet/api/operators/availability", token=token)["operators"]
        assert [(card["login"], card["activeDialogs"]) for card in team] == [("lea", 1)]
