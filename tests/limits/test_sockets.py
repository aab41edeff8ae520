"""Websocket messages and sockets bounded in real server processes: daphne (what `make run` serves) and
gunicorn with deploy/gunicorn.conf.py's uvicorn worker (the production layout's app server).

The chatbox's limit is lowered here to 16 KB, under the console's 32 KB: a chatbox frame between the two
is refused by the application (livechat/bounds.py), a console action over 32 KB by the server itself, from
the frame's header. Just under each limit is served; just over closes the socket with 1009. Twenty sockets
sending 15 MB frames at once leave the server's memory flat: the test measures the peak resident memory
of the server's processes and the bytes the server's kernel acknowledged, never time. Past
WEBSOCKETS_PER_PROCESS the handshake is refused, and accepted again once a socket closes."""

import asyncio
import json
import time
from collections import Counter

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.limits import processes
from tests.limits.sockets import ProdServer, flood, send_huge_frame
from tests.livechat.conftest import talk_frame
from tests.servers import BOT_UUID, Browser, Platform, Server

KB = 1024
MB = 1024 * KB
CHAT_LIMIT = 16 * KB  # CHAT_FRAME_MAX_BYTES, lowered here
CONSOLE_LIMIT = 32 * KB  # CONSOLE_FRAME_MAX_BYTES's default, so also what the servers themselves accept
CHAT_PATH = "/servlet//chatWs"
CONSOLE_PATH = "/servlet/operator/ws"
HOSTILE = 15 * MB
SOCKETS = 20
MEMORY_SLACK = 16 * MB  # what a server may grow by while it refuses: the sockets' own objects, never a frame
CAPPED = 3  # WEBSOCKETS_PER_PROCESS of the capped servers
OPERATOR, PASSWORD = "ws-limits-op", "ws-limits-Pass-2024!"
KINDS = ["daphne", "prod"]


def start(kind: str, env: dict, folder, name: str) -> Server:
    if kind == "prod":
        return ProdServer(env, folder / f"{name}.log").start()
    return Server(env, folder / f"{name}.log", kind).start()


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    folder = tmp_path_factory.mktemp("socket-limits")
    with Platform(folder, processes=0, extra_env={"CHAT_FRAME_MAX_BYTES": str(CHAT_LIMIT)}) as platform:
        for kind in KINDS:
            platform.servers.append(start(kind, platform.env, folder, kind))
        platform.add_operator(OPERATOR, PASSWORD)
        for server in platform.servers:
            # Each server has answered a talk before it is measured (its first loads the bot's matcher).
            assert asyncio.run(exchange(server.ws_url(CHAT_PATH), json.dumps(talk_frame(BOT_UUID, "Bonjour"))))
        yield platform


@pytest.fixture(params=KINDS)
def server(request, platform):
    return next(server for server in platform.servers if server.kind == request.param)


def padded(frame: dict, size: int) -> str:
    """The frame as JSON of exactly `size` bytes (JSON allows trailing whitespace)."""
    text = json.dumps(frame)
    assert len(text) <= size
    return text + " " * (size - len(text))


async def exchange(url: str, text: str, **options) -> dict | int:
    """Send one message; the first JSON answer of a type other than the console's opening state, or the
    close code if the server closes the socket instead."""
    async with connect(url, compression=None, ping_interval=None, open_timeout=30, **options) as socket:
        await socket.send(text)
        try:
            while True:
                answer = json.loads(await asyncio.wait_for(socket.recv(), 30))
                if answer.get("type") != "state":
                    return answer
        except Exception:
            await asyncio.wait_for(socket.wait_closed(), 30)
            return socket.protocol.close_rcvd.code if socket.protocol.close_rcvd else None


def tracebacks_since(server, offset: int) -> list[str]:
    """The failures the server logged past `offset` (a refused socket is no failure)."""
    logged = server.output()[offset:]
    return [line for line in logged.splitlines() if "Traceback" in line or "Exception" in line]


def console_options(server) -> dict:
    cookie = Browser(server).log_in(OPERATOR, PASSWORD)
    return {"additional_headers": {"Cookie": cookie}, "origin": f"http://127.0.0.1:{server.port}"}


def test_a_chatbox_frame_just_under_its_limit_is_served_and_just_over_closed_1009(server):
    frame = talk_frame(BOT_UUID, "Bonjour")
    url = server.ws_url(CHAT_PATH)
    logged = len(server.output())
    answer = asyncio.run(exchange(url, padded(frame, CHAT_LIMIT)))
    assert answer["type"] == "talkResponse"
    # Over the chatbox's limit, under what the server itself accepts: the application closes the socket.
    assert asyncio.run(exchange(url, padded(frame, CHAT_LIMIT + 1))) == 1009
    assert tracebacks_since(server, logged) == []


def test_a_console_action_just_under_its_limit_is_served_and_just_over_closed_1009(server):
    url = server.ws_url(CONSOLE_PATH)
    action = {"action": "status", "status": "available", "ref": 1}
    logged = len(server.output())
    answer = asyncio.run(exchange(url, padded(action, CONSOLE_LIMIT), **console_options(server)))
    assert (answer["type"], answer["ref"]) == ("operator", 1)
    # Over what the server accepts: refused from the frame's header, by daphne or uvicorn themselves.
    code = asyncio.run(exchange(url, padded(action, CONSOLE_LIMIT + 1), **console_options(server)))
    assert code == 1009
    # The console's pushes that were on their way to the closed socket are dropped, not logged as failures.
    assert tracebacks_since(server, logged) == []


async def hostile_sockets(url: str):
    return await asyncio.gather(*(send_huge_frame(url, HOSTILE) for _ in range(SOCKETS)))


def test_twenty_sockets_sending_15_mb_frames_leave_the_server_flat(server):
    pids = server.process_ids()
    logged = len(server.output())
    before = processes.resident(pids)
    processes.reset_peaks(pids)
    refusals = asyncio.run(hostile_sockets(server.ws_url(CHAT_PATH)))
    growth = processes.peaks(pids) - before
    after = processes.resident(pids)
    acked = [refusal.acked for refusal in refusals]
    print(
        f"{server.kind}: {SOCKETS} x {HOSTILE} bytes: close codes {Counter(r.close_code for r in refusals)}, "
        f"acknowledged at most {max(acked)} bytes a socket ({sum(acked)} in all), peak memory +{growth} "
        f"bytes, resident {before} -> {after}"
    )
    assert [refusal.close_code for refusal in refusals] == [1009] * SOCKETS
    # Refused from the frame's header: the server took no more than its kernel buffers on its own.
    assert max(acked) < processes.receive_buffer_max() + MB
    assert max(acked) < HOSTILE / 2
    assert growth < MEMORY_SLACK
    assert tracebacks_since(server, logged) == []
    # The server still serves a visitor.
    answer = asyncio.run(exchange(server.ws_url(CHAT_PATH), json.dumps(talk_frame(BOT_UUID, "Bonjour"))))
    assert answer["type"] == "talkResponse"


def test_a_socket_flooding_messages_is_read_no_faster_than_they_are_handled(server):
    """2,000 talks of 16 KB written at once (32 MB): the server reads a socket's next messages only as its
    consumer takes them (uvicorn by design, daphne through livechat/daphne_sockets.py), so by the time 20
    answers have come it has taken a few of them, and its memory has not grown with the rest."""
    message = padded(talk_frame(BOT_UUID, "Bonjour"), CHAT_LIMIT)
    count, answers = 2_000, 20
    pids = server.process_ids()
    before = processes.resident(pids)
    processes.reset_peaks(pids)
    flooded = asyncio.run(flood(server.ws_url(CHAT_PATH), message, count, answers))
    growth = processes.peaks(pids) - before
    print(f"{server.kind}: {count} x {len(message)} bytes: {flooded.acked} acknowledged, peak memory +{growth} bytes")
    assert flooded.answers == answers
    assert flooded.acked < count * len(message) / 4
    assert growth < MEMORY_SLACK


@pytest.fixture(scope="module")
def capped(platform, tmp_path_factory):
    """A daphne and a production server of their own that accept CAPPED sockets each."""
    folder = tmp_path_factory.mktemp("capped")
    env = {**platform.env, "WEBSOCKETS_PER_PROCESS": str(CAPPED)}
    servers = {kind: start(kind, env, folder, kind) for kind in KINDS}
    yield servers
    for server in servers.values():
        server.stop()


async def refused_handshake(url: str):
    try:
        async with connect(url, open_timeout=30):
            return None
    except InvalidStatus as error:
        return error.response


async def held_sockets_then_one_more(url: str):
    held = [await connect(url, ping_interval=None, open_timeout=30) for _ in range(CAPPED)]
    # Every socket held is served.
    for socket in held:
        await socket.send(json.dumps(talk_frame(BOT_UUID, "Bonjour")))
        assert json.loads(await asyncio.wait_for(socket.recv(), 30))["type"] == "talkResponse"
    refused = [await refused_handshake(url) for _ in range(3)]
    await held.pop().close()
    # The server notices the close as soon as the consumer has ended: the next handshake is accepted then.
    accepted, deadline = None, time.monotonic() + 30
    while accepted is None and time.monotonic() < deadline:
        try:
            accepted = await connect(url, ping_interval=None, open_timeout=30)
        except InvalidStatus:
            await asyncio.sleep(0.05)
    for socket in [*held, accepted] if accepted else held:
        await socket.close()
    return refused, accepted is not None


@pytest.mark.parametrize("kind", KINDS)
def test_past_its_sockets_a_process_refuses_the_handshake_and_accepts_again_once_one_closes(capped, kind):
    server = capped[kind]
    refused, accepted_again = asyncio.run(held_sockets_then_one_more(server.ws_url(CHAT_PATH)))
    assert None not in refused, "a handshake past WEBSOCKETS_PER_PROCESS was accepted"
    if kind == "prod":
        # uvicorn lets the application answer the handshake: the servlet's JSON error, 503, Retry-After.
        for response in refused:
            assert response.status_code == 503
            assert response.headers["Retry-After"] == "5"
            body = json.loads(response.body)
            assert body["code"] == "TOO_MANY_SOCKETS"
            assert f"({CAPPED}, setting WEBSOCKETS_PER_PROCESS)" in body["error"]
    else:
        # daphne's only refusal of a handshake.
        assert [response.status_code for response in refused] == [403] * 3
    assert accepted_again
