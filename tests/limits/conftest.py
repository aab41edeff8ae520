"""The platform under the three servers the README recommends, each a real process on one scratch
database: daphne (what `make run` serves), gunicorn with a uvicorn worker (the production layout) and
gunicorn with a sync worker on config.wsgi. The knowledge-base import limit is lowered to 1 MB, so that
the three limits (chat 64 KB, import 1 MB, everything else 5 MB) differ and a real import still fits."""

import json

import pytest

from tests.conftest import decode
from tests.servers import BOT_UUID, Browser, Platform, first_talk_body

KINDS = ["daphne", "uvicorn", "wsgi"]
KB = 1024
MB = 1024 * KB
CHAT_LIMIT = 64 * KB  # CHAT_BODY_MAX_BYTES's default
IMPORT_LIMIT = 1 * MB  # KB_UPLOAD_MAX_BYTES, lowered here
OTHER_LIMIT = 5 * MB  # DATA_UPLOAD_MAX_MEMORY_SIZE


@pytest.fixture(scope="session")
def platform(tmp_path_factory):
    with Platform(
        tmp_path_factory.mktemp("limits"), processes=0, extra_env={"KB_UPLOAD_MAX_BYTES": str(IMPORT_LIMIT)}
    ) as platform:
        for kind in KINDS:
            # Each server has served a talk before it is measured: its first request loads what every
            # later one shares (live chat's clocks, the bot's matcher), which is not the body's doing.
            talk(platform.start_server(kind), "Bonjour")
        yield platform


@pytest.fixture(params=KINDS)
def server(request, platform):
    return next(server for server in platform.servers if server.kind == request.param)


def talk_body(text: str) -> bytes:
    """A first talk as the chatbox sends it (form-encoded)."""
    return first_talk_body(text, "limits0client00", userUrl="https://shop.example/page")


TALK_PATH = f"/servlet/api/chat/talk/{BOT_UUID}"
FORM = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://shop.example"}


def talk(server, text: str) -> dict:
    """A talk's decoded values; the answer must be 200."""
    status, body = Browser(server).request("POST", TALK_PATH, talk_body(text), FORM)
    assert status == 200, (server.kind, status, body[:300])
    return decode(json.loads(body)["values"])
