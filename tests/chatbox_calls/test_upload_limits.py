"""An upload over CHAT_UPLOAD_MAX_BYTES (10 MB) is refused from its Content-Length before its body is read:
in process, the application never asks for a byte of it; over a real socket to daphne (what `make run`
serves), the 413 arrives while most of the declared body was never sent. A file under the limit, sent the
same way, is stored."""

import json
import socket
import urllib.request
from urllib.parse import urlencode

import pytest
from asgiref.sync import async_to_sync

from bots.servlet.limits import UPLOAD_DEFAULT, limit_for
from tests.chatbox_calls.conftest import CALLBACK, FIELD, cv5_answer, png
from tests.conftest import decode
from tests.servers import BOT_UUID, Platform

LIMIT = 10 * 1024 * 1024
BOUNDARY = "chatbox-upload-boundary"


def multipart(name: str, content: bytes, content_type: str) -> bytes:
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{FIELD}"; filename="{name}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def test_the_upload_paths_have_their_own_limit():
    assert UPLOAD_DEFAULT == LIMIT
    for path in ("/servlet/fileupload", "/servlet/fileupload/", "/fileupload"):
        limit = limit_for(path)
        assert (limit.max_bytes, limit.setting) == (LIMIT, "CHAT_UPLOAD_MAX_BYTES")
    assert limit_for("/servlet/fileuploadx").setting != "CHAT_UPLOAD_MAX_BYTES"


@pytest.mark.django_db
def test_in_process_the_application_never_reads_a_declared_oversize_body(settings, tmp_path):
    """The ASGI application config.asgi serves, called as a server calls it, with a Content-Length one
    byte over the limit: the answer is 413 and the body is never asked for."""
    from config.asgi import application

    settings.CHAT_UPLOAD_DIR = tmp_path
    reads, sent = [], []

    async def receive():
        reads.append(1)
        return {"type": "http.request", "body": b"x" * 1024, "more_body": True}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/servlet/fileupload",
        "raw_path": b"/servlet/fileupload",
        "query_string": b"ctx=x&fin=dydu-upload-file&cb=cb",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode()),
            (b"content-length", str(LIMIT + 1).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    async_to_sync(application)(scope, receive, send)

    assert reads == []
    assert sent[0]["status"] == 413
    body = json.loads(sent[1]["body"])
    assert (body["code"], body["maxBytes"]) == ("TOO_LARGE", LIMIT)
    assert "CHAT_UPLOAD_MAX_BYTES" in body["error"]
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("chatbox-upload")) as running:
        yield running


def new_context(server) -> str:
    form = urlencode({"userInput": "Bonjour", "language": "fr", "space": "Defaut", "solutionUsed": "ASSISTANT"})
    with urllib.request.urlopen(server.url(f"/servlet/api/chat/talk/{BOT_UUID}"), form.encode(), timeout=30) as answer:
        return decode(json.load(answer)["values"])["contextId"]


def raw_post(port: int, path: str, declared: int, body: bytes, timeout: float = 30) -> tuple[int, dict, bytes]:
    """Send the head (declaring `declared` bytes) and only `body`, then read the answer without sending
    anything more: an answer that comes at all came before the rest of the body."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://0.0.0.0:9999\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {declared}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head + body)
        received = b""
        while True:
            end = received.find(b"\r\n\r\n")
            if end >= 0:
                lines = received[:end].decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
                length = int(headers.get("content-length", "0"))
                if len(received) - end - 4 >= length:
                    return int(lines[0].split()[1]), headers, received[end + 4 : end + 4 + length]
            chunk = sock.recv(65536)
            if not chunk:
                raise AssertionError(f"the server closed without a whole answer: {received[:300]!r}")
            received += chunk


def test_daphne_answers_413_before_the_body_arrives_and_stores_nothing(platform):
    server = platform.servers[0]
    context_id = new_context(server)
    path = "/servlet/fileupload?" + urlencode({"ctx": context_id, "fin": FIELD, "cb": CALLBACK})
    start = multipart("grosse-photo.png", png() + b"\x00" * 1024, "image/png")[:2048]

    status, headers, body = raw_post(server.port, path, LIMIT + 1024 * 1024, start)

    assert status == 413
    assert headers["connection"] == "close"
    assert json.loads(body)["code"] == "TOO_LARGE"
    assert not (platform.folder / "uploads").exists()


def test_daphne_stores_a_file_under_the_limit_sent_the_same_way(platform):
    server = platform.servers[0]
    context_id = new_context(server)
    path = "/servlet/fileupload?" + urlencode({"ctx": context_id, "fin": FIELD, "cb": CALLBACK})
    content = multipart("photo.png", png(), "image/png")

    status, headers, body = raw_post(server.port, path, len(content), content)

    assert status == 200, body
    assert headers["content-type"].startswith("text/html")
    assert cv5_answer(body.decode())["params"] == {"filesUploaded": ["photo.png"], "status": "success"}
    stored = [path for path in (platform.folder / "uploads").rglob("*") if path.is_file()]
    assert [path.read_bytes() for path in stored] == [png()]
