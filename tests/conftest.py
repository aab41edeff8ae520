"""Shared fixtures: the demo bot, a chatbox-like client that decodes the base64 envelope."""

import base64

import pytest
from django.test import Client

from knowledge.demo.seed import BOT_UUID, seed_demo_bot


def decode(value):
    """What the chatbox does to `values` (client-contract.md §1.6): base64-decode every string."""
    if isinstance(value, str):
        return base64.b64decode(value, validate=True).decode("utf-8")
    if isinstance(value, dict):
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


class Chatbox:
    """Sends what the CV5 chatbox sends (client-contract.md §2) and reads what it reads."""

    def __init__(self, client: Client, bot_uuid: str, prefix: str = "/servlet/api"):
        self.client = client
        self.bot = bot_uuid
        self.prefix = prefix
        self.context_id = ""
        self.language = "fr"
        self.space = "Defaut"
        self.client_id = "a1b2c3d4e5f6a7b"

    def url(self, path: str) -> str:
        return f"{self.prefix}/{path}"

    def post(self, path: str, data: dict | None = None, **extra):
        return self.client.post(self.url(path), data or {}, **extra)

    def values(self, response) -> dict:
        assert response.status_code == 200, response.content
        body = response.json()
        return decode(body["values"])

    def talk(self, text: str, *, extra: str | None = None, hidden: bool = False, **fields) -> dict:
        data = {
            "userInput": text,
            "alreadyCame": "false",
            "browser": "Chrome 156.0.0.0",
            "clientId": self.client_id,
            "language": self.language,
            "os": "Linux undefined",
            "qualificationMode": "false",
            "space": self.space,
            "userUrl": "http://shop.example/page",
            "solutionUsed": "ASSISTANT",
            "variables": "{}",
            "mode": "U3luY2hyb24=",
        }
        if hidden:
            data["doNotRegisterInteraction"] = "true"
        if extra:
            data["extraParameters"] = extra
        data.update(fields)
        path = f"chat/talk/{self.bot}" + (f"/{self.context_id}" if self.context_id else "")
        values = self.values(self.post(path, data))
        self.context_id = values["contextId"]
        return values


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, whose PostgreSQL connection pool is closed before the database is
    dropped (its idle connections would keep the drop from happening)."""
    yield
    from django.db import connections

    with django_db_blocker.unblock():
        # A connection this thread still holds goes back to the pool first: closing a pool leaves the
        # connections that are checked out open.
        connections.close_all()
        for connection in connections.all():
            if getattr(connection, "pool", None) is not None:
                connection.close_pool()


@pytest.fixture(autouse=True, scope="session")
def _no_livechat_clocks():
    """Tests drive live chat's timers themselves (livechat.timers.sweep with a chosen time); a test that
    runs real server processes sets LIVECHAT_TIMER_SECONDS in their environment. The same for the vector
    worker."""
    from django.conf import settings

    settings.LIVECHAT_TIMER_SECONDS = 0
    # Nor does the in-process ASGI app start the vector worker: a worker left running by one test would
    # compute another test's vectors behind its back (the tests that want one start it; server processes
    # the tests run start theirs from their environment).
    settings.VECTORS_WORKER = False
    # Nor are indexes stored between tests (the tests of tests/matching/test_index_files.py store theirs in
    # their own folder): a test reads the knowledge it has just written, as a process would without them.
    settings.MATCHING_INDEX_DIR = ""


@pytest.fixture(autouse=True)
def _fresh_per_process_flags():
    """Each test starts without the SAML flags an earlier test's bots left in this process: they live
    30 s, so a test that inherited one near its end saw it expire mid-test (an extra query)."""
    from accounts.saml.enabled import forget

    forget()


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """Each test gets its own channel layer. Channels keeps one layer per process, and the Redis layer
    binds its receive lock and connections to the event loop that first used them; every test's
    `async_to_sync` or communicator runs its own loop, so a layer left mid-receive by an earlier test
    failed a later one ("Lock … is bound to a different event loop", CI's Redis run). The product asks
    for the layer at each use (`get_channel_layer()`), so dropping the cached one is safe."""
    yield
    from channels.layers import channel_layers

    channel_layers.backends.clear()


@pytest.fixture
def demo_bot(db):
    bot, _ = seed_demo_bot()
    return bot


@pytest.fixture
def chatbox(client, demo_bot):
    return Chatbox(client, BOT_UUID)
