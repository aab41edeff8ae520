"""The chat gate (bots/servlet/gate.py): a process runs CHAT_CONCURRENCY chat calls at once, the others
wait in arrival order; other HTTP calls and websockets never wait on it; the real ASGI app is gated."""

import asyncio

import pytest

from bots.servlet.gate import ChatGate

TALK = "/servlet/api/chat/talk/d3b0d3b0-0000-4000-8000-000000000001"


class Recorder:
    """An application that holds each request until the test lets it go, noting who ran when."""

    def __init__(self):
        self.running = []
        self.started = []
        self.release = {}

    async def __call__(self, scope, receive, send):
        path = scope["path"]
        self.running.append(path)
        self.started.append(path)
        event = self.release.setdefault(path, asyncio.Event())
        await event.wait()
        self.running.remove(path)


async def settle():
    for _ in range(5):
        await asyncio.sleep(0)


def http(path):
    return {"type": "http", "path": path, "root_path": ""}


async def nothing():
    return {"type": "http.disconnect"}


async def ignore(message):
    return None


def run(coroutine):
    return asyncio.run(coroutine)


def test_chat_calls_beyond_the_limit_wait_their_turn_in_order(settings):
    settings.CHAT_CONCURRENCY = settings.CHAT_CONCURRENCY_MAX = 2  # a fixed width: turns.py widens it
    inner = Recorder()
    gate = ChatGate(inner)

    async def scenario():
        paths = [f"{TALK}/{n}" for n in range(4)] + ["/servlet/chatHttp"]
        tasks = []
        for path in paths:
            tasks.append(asyncio.create_task(gate(http(path), nothing, ignore)))
            await settle()
        # Two run, three wait (the chatbox's chatHttp is a chat call too).
        assert inner.running == paths[:2]
        inner.release[paths[0]].set()
        await settle()
        assert inner.running == [paths[1], paths[2]]  # the next in arrival order, not any
        for path in paths[1:]:
            inner.release.setdefault(path, asyncio.Event()).set()
            await settle()
        await asyncio.gather(*tasks)
        assert inner.started == paths

    run(scenario())


async def running_at_once(gate, inner, scopes) -> list[str]:
    """Send every scope through the gate at once: the paths the application runs before any ends."""
    tasks = [asyncio.create_task(gate(scope, nothing, ignore)) for scope in scopes]
    await settle()
    running = list(inner.running)
    for scope in scopes:
        inner.release.setdefault(scope["path"], asyncio.Event()).set()
    await asyncio.gather(*tasks)
    return running


def test_other_calls_and_websockets_never_wait_on_the_chat(settings):
    settings.CHAT_CONCURRENCY = settings.CHAT_CONCURRENCY_MAX = 1
    inner = Recorder()
    paths = [TALK, "/servlet/api/bot/knowledgebase/import/x", "/admin/", "/servlet/api/serverstatus"]
    scopes = [http(path) for path in paths] + [{"type": "websocket", "path": "/servlet/chatWs"}]
    assert sorted(run(running_at_once(ChatGate(inner), inner, scopes))) == sorted([*paths, "/servlet/chatWs"])


def test_zero_turns_the_gate_off(settings):
    settings.CHAT_CONCURRENCY = 0
    inner = Recorder()
    scopes = [http(f"{TALK}/{n}") for n in range(6)]
    assert len(run(running_at_once(ChatGate(inner), inner, scopes))) == 6


@pytest.mark.django_db(transaction=True)
def test_the_platform_serves_its_talks_through_the_gate(demo_bot, settings, monkeypatch):
    """The real ASGI app: three talks sent at once through a gate of one all answer, one at a time."""
    from channels.testing import HttpCommunicator

    from config.asgi import application

    settings.CHAT_CONCURRENCY = settings.CHAT_CONCURRENCY_MAX = 1
    seen = {"at_once": 0, "most": 0, "paths": []}
    original = ChatGate.__call__

    def counted(inner):
        async def app(scope, receive, send):
            seen["at_once"] += 1
            seen["most"] = max(seen["most"], seen["at_once"])
            try:
                return await inner(scope, receive, send)
            finally:
                seen["at_once"] -= 1

        app.counted = True
        return app

    async def watched(self, scope, receive, send):
        seen["paths"].append(scope["path"])
        if not getattr(self.application, "counted", False):  # what runs behind the gate (Django)
            monkeypatch.setattr(self, "application", counted(self.application))
        return await original(self, scope, receive, send)

    monkeypatch.setattr(ChatGate, "__call__", watched)

    async def scenario():
        body = b"userInput=Bonjour&language=fr&space=Defaut"
        headers = [(b"content-type", b"application/x-www-form-urlencoded"), (b"host", b"127.0.0.1")]
        talks = [HttpCommunicator(application, "POST", TALK, body=body, headers=headers) for _ in range(3)]
        return await asyncio.gather(*(talk.get_response(timeout=60) for talk in talks))

    answers = run(scenario())
    assert [answer["status"] for answer in answers] == [200, 200, 200]
    assert seen["paths"] == [TALK] * 3
    assert seen["most"] == 1
