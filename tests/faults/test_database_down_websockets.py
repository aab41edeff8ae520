"""The database stops while websockets are open, on a PostgreSQL of the test's own (never the machine's)
under real servers, daphne (`make run`) and gunicorn with a uvicorn worker (the production layout):
every socket that sends a frame is answered, none left silent (a reply that does not come within
HUNG_SECONDS counts as silent: tests/faults/client.py). A chatbox's talk gets the temporary-unavailability
notice with its retry hint and a text for the visitor, a ping its pong; the operator's console gets
DATABASE_UNAVAILABLE with retryAfter, and a console opened meanwhile is told and closed with 1013. When
the database is back, the same sockets are served as before, and the log holds no traceback."""

import json
import time
from contextlib import ExitStack

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.conftest import decode
from tests.faults.client import HUNG_SECONDS
from tests.faults.test_cache_down import OPERATOR, OPERATOR_PASSWORD, wait_for
from tests.livechat.conftest import talk_frame
from tests.livechat.test_processes import Console
from tests.servers import BOT_UUID, Browser, Platform, PrivatePostgres

pytestmark = pytest.mark.skipif(not PrivatePostgres.available(), reason="needs PostgreSQL's initdb and pg_ctl")

UNAVAILABLE_TEXT = "Le service est momentanément indisponible. Réessayez dans quelques secondes."


def reply(socket) -> dict:
    """The socket's next frame (pongs skipped), or {"silent": …} if none comes within HUNG_SECONDS."""
    deadline = time.monotonic() + HUNG_SECONDS
    try:
        while True:
            text = socket.recv(timeout=max(0.1, deadline - time.monotonic()))
            if text != "pong":
                frame = json.loads(text)
                return {"type": frame["type"], **decode(frame["values"])}
    except TimeoutError:
        return {"silent": HUNG_SECONDS}


def test_the_database_stops_and_every_websocket_is_told_at_once_then_served_again(tmp_path):
    with PrivatePostgres() as postgres, ExitStack() as stack:
        url = postgres.create_database("bots")
        platform = stack.enter_context(Platform(tmp_path / "platform", database_url=url))
        servers = {"daphne": platform.servers[0], "uvicorn": platform.start_server("uvicorn")}
        platform.add_operator(OPERATOR, OPERATOR_PASSWORD)
        console = Console(servers["daphne"], OPERATOR, OPERATOR_PASSWORD, stack)
        cookie = Browser(servers["uvicorn"]).log_in(OPERATOR, OPERATOR_PASSWORD)  # a session made before
        sockets = {
            f"{kind}-{n}": stack.enter_context(connect(server.ws_url("/servlet//chatWs"), open_timeout=10))
            for kind, server in servers.items()
            for n in range(3)
        }
        contexts = {}
        for name, socket in sockets.items():
            socket.send(json.dumps(talk_frame(BOT_UUID, f"Quels sont vos horaires d'ouverture ? ({name})")))
            answer = reply(socket)
            assert answer["type"] == "talkResponse", (name, answer)
            contexts[name] = answer["contextId"]

        postgres.stop("fast")
        # Every socket talks at once: each is answered, with the notice and its retry hint.
        for name, socket in sockets.items():
            socket.send(json.dumps(talk_frame(BOT_UUID, f"Comment faire un virement ? ({name})", contexts[name])))
        during = {name: reply(socket) for name, socket in sockets.items()}
        for name, notice in during.items():
            assert notice.get("type") == "notification", (name, notice)
            assert (notice["code"], notice["retryAfter"]) == ("ERRTemporarilyUnavailable", 5), (name, notice)
            assert notice["text"] == UNAVAILABLE_TEXT, (name, notice)
        for name, socket in sockets.items():
            socket.send("ping")
            assert socket.recv(timeout=HUNG_SECONDS) == "pong", name
        console.send(action="status", status="available", ref=1)
        told = json.loads(console.socket.recv(timeout=HUNG_SECONDS))
        assert (told["type"], told["code"], told["retryAfter"], told["ref"]) == ("error", "DATABASE_UNAVAILABLE", 5, 1)
        with connect(
            servers["uvicorn"].ws_url("/servlet/operator/ws"),
            additional_headers={"Cookie": cookie, "Origin": servers["uvicorn"].base},
            open_timeout=10,
        ) as late:
            refused = json.loads(late.recv(timeout=HUNG_SECONDS))
            assert (refused["code"], refused["retryAfter"]) == ("DATABASE_UNAVAILABLE", 5), refused
            with pytest.raises(ConnectionClosed) as closed:
                late.recv(timeout=HUNG_SECONDS)
            assert closed.value.rcvd.code == 1013  # try again later: the console's page retries with backoff

        postgres.start()

        def served_again(name):
            def talk():
                socket = sockets[name]
                socket.send(json.dumps(talk_frame(BOT_UUID, "Combien coûte le compte ?", contexts[name])))
                return reply(socket)

            return talk

        # Each process sees the database back at its own next probe (bots/status/services.py), which on a busy
        # machine may come a few seconds after the other's: wait for both before every socket talks.
        for kind in servers:
            wait_for(served_again(f"{kind}-0"), lambda frame: frame.get("type") == "talkResponse", f"{kind} served")
        for name, socket in sockets.items():
            socket.send(json.dumps(talk_frame(BOT_UUID, f"Combien coûte le compte ? ({name})", contexts[name])))
            assert reply(socket)["type"] == "talkResponse", name
        for kind, server in servers.items():
            log = server.output()
            for storm in ("Traceback", "Exception in ASGI application", "Exception inside application"):
                assert storm not in log, (kind, log[-5000:])
    codes = {notice["code"] for notice in during.values()}
    print(f"\ndatabase outage under open websockets: {len(during)} chatbox sockets talking at once, each told {codes}")
