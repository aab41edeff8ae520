"""A body over its URL's limit is refused with 413 (the servlet error shape, readable by a chatbox on
another site) before it is read, under each server the README recommends: from its Content-Length, or,
sent chunked without one, at the limit while it streams. A hostile 100 MB body to any URL leaves the
server's memory flat: the tests measure the bytes the server's kernel took from the client (an upper
bound of what the process read) and the peak resident memory of the server's processes, never time."""

import pytest

from tests.limits import processes, wire
from tests.limits.conftest import CHAT_LIMIT, IMPORT_LIMIT, MB, OTHER_LIMIT
from tests.servers import BOT_UUID, Browser

HOSTILE = 100 * MB
# Resident memory a server may grow by while it refuses a body: a request's own objects, never the body.
MEMORY_SLACK = 16 * MB

# (URL, its limit, the setting that names it, whether it is a servlet URL and so answers CORS)
URLS = {
    "chat talk": (f"/servlet/api/chat/talk/{BOT_UUID}", CHAT_LIMIT, "CHAT_BODY_MAX_BYTES", True),
    "knowledge-base import": (
        f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}",
        IMPORT_LIMIT,
        "KB_UPLOAD_MAX_BYTES",
        True,
    ),
    "unknown URL": ("/no/such/page", OTHER_LIMIT, "DATA_UPLOAD_MAX_MEMORY_SIZE", False),
    "admin": ("/admin/login/", OTHER_LIMIT, "DATA_UPLOAD_MAX_MEMORY_SIZE", False),
}


def assert_refused(answer: wire.Answer, limit: int, setting: str, servlet: bool):
    assert answer.status == 413, answer
    body = answer.json()
    assert body["code"] == "TOO_LARGE"
    assert body["maxBytes"] == limit
    assert setting in body["error"]
    assert answer.headers["content-type"].startswith("application/json")
    # The chatbox runs on the customer's site: its script must be able to read the refusal.
    if servlet:
        assert answer.headers["access-control-allow-origin"] == "*"


def send_measured(server, path: str, size: int, **options) -> tuple[wire.Answer, int]:
    """Send the body; return the answer and how much the server's processes' peak memory grew."""
    pids = server.process_ids()
    before = processes.resident(pids)
    processes.reset_peaks(pids)
    answer = wire.send(server.port, path, size, **options)
    growth = processes.peaks(pids) - before
    print(
        f"{server.kind} {path} {size} bytes chunked={options.get('chunked', False)}: {answer.status}, "
        f"{answer.acked} bytes acknowledged, peak memory +{growth} bytes"
    )
    return answer, growth


@pytest.mark.parametrize("url", URLS)
def test_a_declared_body_over_the_limit_is_refused_unread(server, url):
    path, limit, setting, servlet = URLS[url]
    answer, growth = send_measured(server, path, HOSTILE)
    assert_refused(answer, limit, setting, servlet)
    # Refused on its Content-Length: the server took no more than its kernel buffers by itself, a
    # fraction of the 100 MB, and its memory did not grow with it.
    assert answer.acked < processes.receive_buffer_max() + MB
    assert answer.acked < HOSTILE / 2
    assert growth < MEMORY_SLACK
    # The process is alive and serves the next request.
    status, _ = Browser(server).request("GET", "/servlet/api/serverstatus")
    assert status < 500


@pytest.mark.parametrize("url", URLS)
def test_a_streamed_body_is_cut_off_at_the_limit(platform, server, url):
    path, limit, setting, servlet = URLS[url]
    # Without credentials an import is refused 401 from its headers (test_refused_before_body.py): the
    # administrator's token makes it one the limit alone stops.
    headers = {"Authorization": platform.admin_token()} if "import" in url else {}
    answer, growth = send_measured(server, path, HOSTILE, chunked=True, headers=headers)
    assert_refused(answer, limit, setting, servlet)
    assert answer.acked < limit + processes.receive_buffer_max() + MB
    assert answer.acked < HOSTILE / 2
    assert growth < MEMORY_SLACK


def test_one_byte_over_the_limit_is_refused_and_the_limit_itself_is_not(server):
    """chat/error (the largest chat call) with a body of exactly CHAT_BODY_MAX_BYTES, then one byte more."""
    path = f"/servlet/api/chat/error/{BOT_UUID}"
    fields = b"error=TypeError&message=m&stackTrace="
    at_limit = fields + b"x" * (CHAT_LIMIT - len(fields))
    form = "application/x-www-form-urlencoded"
    answer = wire.send(server.port, path, 0, body=at_limit, content_type=form)
    assert (answer.status, answer.body) == (200, b"{}")
    answer = wire.send(server.port, path, 0, body=at_limit + b"x", content_type=form)
    assert_refused(answer, CHAT_LIMIT, "CHAT_BODY_MAX_BYTES", servlet=True)


def test_a_client_that_waits_for_100_continue_is_answered_413_without_sending_the_body(server):
    """curl and other careful clients ask before sending a large body: they get the 413 instead."""
    path, limit, setting, servlet = URLS["knowledge-base import"]
    answer = wire.send(server.port, path, HOSTILE, headers={"Expect": "100-continue"}, send_body=False, timeout=20)
    assert_refused(answer, limit, setting, servlet)
    assert answer.offered == 0
    if server.kind != "wsgi":
        # gunicorn's sync worker answers "100 Continue" itself before the application sees the request;
        # the body it invites is then not read (the connection closes after the 413).
        assert answer.interim == []


def test_an_import_over_its_limit_is_refused_although_other_urls_accept_that_size(server):
    """2 MB: under the 5 MB of other URLs, over the knowledge-base import's 1 MB (KB_UPLOAD_MAX_BYTES)."""
    path, limit, setting, servlet = URLS["knowledge-base import"]
    answer = wire.send(server.port, path, 2 * MB)
    assert_refused(answer, limit, setting, servlet)
    assert "1 MB" in answer.json()["error"]
