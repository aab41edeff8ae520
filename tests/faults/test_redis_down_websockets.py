"""Redis stops under websocket load and comes back: a Redis of the test's own (never the machine's) is the
channel layer of real servers, daphne (`make run`) and gunicorn with a uvicorn worker (the production
layout). While it is down the chatbox sockets that were open stay open and keep talking with the bot, a
socket opened meanwhile is served, the operator's console stays open and is told the live chat is
degraded, a visitor asking for a human gets the no-operator answer, and the server status says Warning
naming Redis for live chat; each server logs the outage in one line, with no traceback. When Redis is
back the console is told it is restored and gets its state, an operator message reaches a visitor whose
socket stayed open through the outage, and the status is Ok again."""

import json
import shutil
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.conftest import decode
from tests.faults.client import call
from tests.faults.test_cache_down import OPERATOR, OPERATOR_PASSWORD, status, wait_for
from tests.livechat.conftest import talk_frame
from tests.livechat.test_processes import Console, Visitor
from tests.servers import BOT_UUID, Platform, PrivateRedis

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

QUESTIONS = ("Quels sont vos horaires d'ouverture ?", "Comment faire un virement ?", "Combien coûte le compte ?")
NO_OPERATOR = "Aucun conseiller n'est disponible"
OUTAGE_SECONDS = 15


@dataclass
class Talker:
    """A chatbox socket talking with the bot, one talk after the other, in a thread, until stopped."""

    url: str
    name: str
    answers: list[float] = field(default_factory=list)  # time.monotonic() of each bot answer
    failure: str = ""
    context_id: str = ""

    def run(self, stop: threading.Event):
        try:
            with connect(self.url, open_timeout=10) as socket:
                while not stop.is_set():
                    question = f"{QUESTIONS[len(self.answers) % len(QUESTIONS)]} ({self.name})"
                    socket.send(json.dumps(talk_frame(BOT_UUID, question, self.context_id)))
                    answer = next_frame(socket)
                    if answer["type"] != "talkResponse":
                        self.failure = f"answered {answer}"
                        return
                    self.context_id = answer["contextId"]
                    self.answers.append(time.monotonic())
                    stop.wait(0.2)
                socket.send("ping")
                if socket.recv(timeout=10) != "pong":
                    self.failure = "no pong at the end"
        except (ConnectionClosed, OSError, TimeoutError) as error:  # what the outage used to do
            self.failure = repr(error)

    def since(self, moment: float) -> int:
        return sum(1 for at in list(self.answers) if at > moment)


def next_frame(socket, timeout: float = 15) -> dict:
    while True:
        text = socket.recv(timeout=timeout)
        if text != "pong":
            frame = json.loads(text)
            return {"type": frame["type"], **decode(frame["values"])}


def livechat_problem(body: dict) -> dict | None:
    return next((p for p in body.get("problems", []) if p["application"] == "livechat"), None)


def log_lines(server, text: str) -> list[str]:
    return [line for line in server.output().splitlines() if text in line]


def test_redis_stops_under_websocket_load_sockets_stay_open_and_live_chat_comes_back(tmp_path):
    folder = tmp_path / "platform"
    folder.mkdir()
    redis = PrivateRedis(folder).start()
    with ExitStack() as stack:
        stack.callback(redis.stop)
        # INFO: the recovery's line is INFO (one WARNING per outage, one INFO when it is over).
        platform = stack.enter_context(Platform(folder, redis_url=redis.url, extra_env={"LOG_LEVEL": "INFO"}))
        servers = {"daphne": platform.servers[0], "uvicorn": platform.start_server("uvicorn")}
        daphne = servers["daphne"]
        token = platform.admin_token()
        platform.add_operator(OPERATOR, OPERATOR_PASSWORD, max_dialogs=3)
        console = Console(daphne, OPERATOR, OPERATOR_PASSWORD, stack)
        console.send(action="status", status="available")
        console.until("operator")

        # A visitor in live chat over the chatbox's websocket, on the production layout's server.
        live = Visitor(servers["uvicorn"], stack)
        assert live.ask_for_human()["typeResponse"] == "DMLiveChatConnectionSucceed"
        dialog = console.until("dialog")["dialog"]
        console.send(action="send", dialog=dialog["id"], text="Bonjour, ici Léa.")
        assert live.frame()["text"] == "Bonjour, ici Léa."

        stop = threading.Event()
        talkers = [
            Talker(server.ws_url("/servlet//chatWs"), f"{kind}-{n}") for kind, server in servers.items() for n in (1, 2)
        ]
        threads = [threading.Thread(target=talker.run, args=(stop,), daemon=True) for talker in talkers]
        for thread in threads:
            thread.start()
        stack.callback(lambda: [stop.set(), *(thread.join(timeout=30) for thread in threads)])
        wait_for(lambda: [t.since(0) for t in talkers], lambda counts: min(counts) >= 2, "talking")

        redis.stop()
        stopped_at = time.monotonic()

        # The console stays open and is told; the sockets that were open keep talking with the bot.
        degraded = console.until("degraded", timeout=30)
        assert "Redis" in degraded["error"]
        wait_for(
            lambda: [t.since(stopped_at) for t in talkers], lambda counts: min(counts) >= 10, "talking without Redis"
        )
        assert [t.failure for t in talkers] == [""] * len(talkers)
        # A socket opened now is served, on each server; a visitor asking for a human hears nobody is there.
        for kind, server in servers.items():
            newcomer = Visitor(server, stack)
            newcomer.talk("Comment faire un virement ?")
            answer = newcomer.frame()
            assert answer["type"] == "talkResponse" and "virement" in answer["text"].lower(), (kind, answer)
            refused = newcomer.ask_for_human()
            assert refused["typeResponse"] != "DMLiveChatConnectionSucceed", (kind, refused)
            assert NO_OPERATOR in refused["text"] and refused["livechat"] == "no_operator", (kind, refused)
            available = call(server.base, "POST", f"/servlet/api/operators/available/{BOT_UUID}", {})
            assert available.status == 200 and available.json()["available"] is False, (kind, available.body)
        assert live.ping() == "pong"  # the live visitor's socket is still open
        # The status: Warning, naming Redis, for live chat and for the shared cache (the same Redis): degraded,
        # everything still served.
        for kind, server in servers.items():
            down = status(server.base, token)
            assert down["status"] == "Warning", (kind, down)
            problem = livechat_problem(down)
            assert problem is not None and problem["status"] == "Warning", (kind, down)
            assert "channel layer (Redis) is unreachable" in problem["reason"], (kind, down)

        # Down as long as in the issue (15 s): the probing backs off to its cap meanwhile, the load goes on.
        time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped_at)))
        redis.start()
        started_at = time.monotonic()
        assert console.until("restored", timeout=60) == {"type": "restored"}
        state = console.until("state")
        assert [card["id"] for card in state["dialogs"]] == [dialog["id"]]
        # The visitor's socket, open through the outage, is in its dialog's group again.
        console.send(action="send", dialog=dialog["id"], text="Je suis de retour.")
        assert wait_for(live.frame, lambda frame: frame.get("text") == "Je suis de retour.", "the push")["human"]
        for server in servers.values():
            wait_for(lambda server=server: status(server.base, token), lambda body: body["status"] == "Ok", "Ok")
        wait_for(lambda: [t.since(started_at) for t in talkers], lambda counts: min(counts) >= 2, "talking after")
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        assert [t.failure for t in talkers] == [""] * len(talkers)

        # No storm: one line when the layer failed and one when it answered again, no traceback.
        for kind, server in servers.items():
            assert len(log_lines(server, "channel layer is unreachable")) == 1, (kind, server.output()[-3000:])
            assert len(log_lines(server, "channel layer answers again")) == 1, (kind, server.output()[-3000:])
            for storm in ("Traceback", "Exception in ASGI application", "Exception inside application"):
                assert not log_lines(server, storm), (kind, server.output()[-5000:])
    during = {t.name: t.since(stopped_at) - t.since(started_at) for t in talkers}
    print(
        f"\nRedis down {started_at - stopped_at:.1f} s under websocket load: bot answers per socket meanwhile {during};"
        " per server one line when it failed and one when it was back, no traceback"
    )
