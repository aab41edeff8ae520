"""The rule of bots/servlet/before_body.py, in process, on the real ASGI and WSGI applications: an upload its
view would refuse gets the view's answer while the application never asks for a byte of the body; a caller
the view lets through gets the body read and the work done. And every view that reads a file checks before
its body, by construction: a new upload view without `before_body` fails here."""

import asyncio
import base64
import inspect
import json
from io import BytesIO

import pytest
from asgiref.sync import async_to_sync
from django.urls import URLPattern, URLResolver, get_resolver

from bots.servlet import limits
from bots.servlet.before_body import door_for
from knowledge.exchange import export_knowledge_base
from tests.accounts.personas import personas  # noqa: F401 (a fixture)
from tests.conftest import BOT_UUID

BOUNDARY = "before-body-boundary"
IMPORT = f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}"
DATA_IMPORT = f"/servlet/api/bot/data/import/{BOT_UUID}"


def view_classes(patterns=None):
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            yield from view_classes(pattern.url_patterns)
        elif isinstance(pattern, URLPattern) and getattr(pattern.callback, "view_class", None):
            yield pattern.callback.view_class


def reads_a_file(view) -> bool:
    """Whether a handler of the view, or a function of its module that a handler calls, reads a file."""
    module = inspect.getmodule(view)
    sources = []
    for name in ("post", "put", "patch"):
        handler = getattr(view, name, None)
        if handler is None:
            continue
        sources.append(inspect.getsource(handler))
        called = (getattr(module, called, None) for called in handler.__code__.co_names)
        sources += [inspect.getsource(function) for function in called if inspect.isfunction(function)]
    return any(word in source for source in sources for word in ("received_file", "FILES", "upload_handlers"))


def test_every_view_that_reads_a_file_checks_before_its_body():
    readers = {view for view in view_classes() if reads_a_file(view)}
    assert len(readers) >= 5  # the three imports, the Rasa import, the chatbox's file
    assert [view.__name__ for view in readers if not hasattr(view, "before_body")] == []


@pytest.mark.parametrize(
    "path",
    [
        *(
            f"{prefix}/bot/{kind}/import/{BOT_UUID}{end}"
            for prefix in ("/servlet/api", "/api")
            for kind in ("knowledgebase", "data", "gallery")
            for end in ("", "/")
        ),
        f"/servlet/api/externalmatchers/rasa/import/{BOT_UUID}",
        "/servlet/fileupload",
        "/fileupload/",
    ],
)
def test_every_upload_url_is_a_door_and_chat_calls_are_not(path):
    assert door_for(path) is not None
    assert door_for(f"/servlet/api/chat/talk/{BOT_UUID}") is None
    assert door_for(f"/servlet/api/bot/knowledgebase/export/{BOT_UUID}") is None


def multipart(content: bytes) -> bytes:
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="kb.xml"\r\n'
            "Content-Type: application/xml\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def call_asgi(path: str, *, headers: dict, body: bytes = b"", declared: int | None = None, method: str = "POST"):
    """config.asgi's application called as a server calls it; (status, headers, JSON body, reads asked for)."""
    from config.asgi import application

    reads, sent = [], []
    pieces = [body[start : start + 65536] for start in range(0, len(body), 65536)] or [b""]

    async def receive():
        reads.append(1)
        if len(reads) > len(pieces):
            await asyncio.Event().wait()  # the client stays: Django would drop the answer to one that left
        return {"type": "http.request", "body": pieces[len(reads) - 1], "more_body": len(reads) < len(pieces)}

    async def send(message):
        sent.append(message)

    raw_headers = [
        (b"host", b"127.0.0.1"),
        (b"origin", b"https://shop.example"),
        (b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode()),
        (b"content-length", str(len(body) if declared is None else declared).encode()),
        *((name.lower().encode(), value.encode()) for name, value in headers.items()),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": raw_headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    async_to_sync(application)(scope, receive, send)
    answer_headers = {name.decode(): value.decode() for name, value in sent[0]["headers"]}
    body = b"".join(message.get("body", b"") for message in sent[1:])
    return sent[0]["status"], answer_headers, json.loads(body), len(reads)


pytestmark = pytest.mark.django_db(transaction=True)
HUGE = 49 * 1024 * 1024


@pytest.fixture(autouse=True)
def no_linger(monkeypatch):
    """In process there is no socket to close gently: the answer's linger would only make the test wait
    (and let the failed-login guard's 1 s slow-down pass between two attempts)."""
    monkeypatch.setattr(limits, "LINGER_SECONDS", 0)


def test_an_anonymous_import_is_answered_401_and_the_body_is_never_asked_for(demo_bot):
    status, headers, body, reads = call_asgi(IMPORT, headers={}, declared=HUGE)
    assert (status, body["code"], reads) == (401, "MISSING_CREDENTIALS", 0)
    assert headers["connection"] == "close"
    assert headers["access-control-allow-origin"] == "*"


def test_another_account_s_administrator_gets_403_unread(personas):  # noqa: F811
    status, _, body, reads = call_asgi(IMPORT, headers={"Authorization": personas.charlie.token}, declared=HUGE)
    assert (status, body["code"], reads) == (403, "FORBIDDEN", 0)


def test_an_editor_may_import_knowledge_but_not_bot_data_which_holds_preferences(personas):  # noqa: F811
    status, _, body, reads = call_asgi(DATA_IMPORT, headers={"Authorization": personas.bob.token}, declared=HUGE)
    assert (status, body["code"], body["action"], reads) == (403, "FORBIDDEN", "preferences.edit", 0)


def test_a_method_the_view_does_not_answer_is_its_405_unread(personas):  # noqa: F811
    status, headers, _, reads = call_asgi(
        IMPORT, headers={"Authorization": personas.alice.token}, declared=HUGE, method="PUT"
    )
    assert (status, reads) == (405, 0)
    assert headers["allow"] == "POST, OPTIONS"


def test_a_foreign_host_is_the_servlet_s_400_unread(personas):  # noqa: F811
    status, _, body, reads = call_asgi(
        IMPORT, headers={"Authorization": personas.alice.token, "Host": "evil.example"}, declared=HUGE
    )
    assert (status, body["code"], reads) == (400, "INVALID_HOST", 0)


def test_a_wrong_basic_password_is_401_unread_and_counted(personas):  # noqa: F811
    wrong = "Basic " + base64.b64encode(f"{personas.alice.login}:not-hers".encode()).decode()
    statuses = [call_asgi(IMPORT, headers={"Authorization": wrong}, declared=HUGE)[::3] for _ in range(4)]
    assert statuses == [(401, 0), (401, 0), (401, 0), (429, 0)]


def test_the_administrator_s_import_is_read_and_done(demo_bot, personas):  # noqa: F811
    exported = b"".join(export_knowledge_base(demo_bot, gallery=True))
    status, _, body, reads = call_asgi(
        IMPORT, headers={"Authorization": personas.alice.token}, body=multipart(exported)
    )
    assert status == 200, body
    assert body["imported"]["knowledgeItems"]["total"] > 0
    assert reads > 1


class Unreadable(BytesIO):
    """wsgi.input that fails the test if anything reads it."""

    def read(self, *args):
        raise AssertionError("the body was read")

    readline = read


def test_under_wsgi_an_anonymous_chunked_import_is_answered_without_reading_wsgi_input(demo_bot):
    from config.wsgi import application

    started = []
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": IMPORT,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_TRANSFER_ENCODING": "chunked",
        "CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.input": Unreadable(),
        "wsgi.url_scheme": "http",
        "wsgi.errors": BytesIO(),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    body = b"".join(application(environ, lambda status, headers: started.append((status, headers))))
    assert started[0][0].startswith("401")
    assert json.loads(body)["code"] == "MISSING_CREDENTIALS"


def test_while_the_database_is_down_an_upload_gets_the_503_unread(demo_bot, monkeypatch):
    from bots.status import services

    monkeypatch.setattr(services, "database_down", lambda: True)
    status, headers, body, reads = call_asgi(IMPORT, headers={"Authorization": "dyt_x"}, declared=HUGE)
    assert (status, body["code"], reads) == (503, "DATABASE_UNAVAILABLE", 0)
    assert int(headers["retry-after"]) >= 1
