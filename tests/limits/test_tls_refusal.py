"""The embedded server refuses a TLS handshake on its plain-HTTP port at once (bots/servlet/tls_refusal.py):
CV5 tries wss:// before polling, and a handshake left unanswered kept a visitor waiting for the browser's
own timeout (30 s in Chromium) before the operator's messages could reach them.

Against daphne as `make run` serves it: a real ClientHello (Python's ssl) gets TLS's refusal and the
connection closed, not silence; chromium's wss:// attempt fails instead of hanging; plain HTTP on the same
port is served as before. The times are printed (a figure, not an assertion: machines are noisy); the
assertions are what the server did."""

import socket
import ssl
import time
from pathlib import Path

import pytest

from bots.servlet.tls_refusal import TLS_PROTOCOL_VERSION_ALERT
from tests.e2e.conftest import browser  # noqa: F401  (the fixture: Debian's chromium through Playwright)
from tests.limits.conftest import talk

SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "limits"
# Far beyond a refusal's milliseconds, far below the 30 s a browser waits for a silent handshake.
WAIT_SECONDS = 10


@pytest.fixture
def daphne(platform):
    return next(server for server in platform.servers if server.kind == "daphne")


def client_hello() -> bytes:
    """The first bytes a TLS client sends: a real ClientHello from Python's ssl."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    tls = context.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


def test_a_client_hello_is_answered_with_an_alert_and_the_connection_closed(daphne):
    hello = client_hello()
    assert hello[:1] == b"\x16"
    with socket.create_connection(("127.0.0.1", daphne.port), timeout=WAIT_SECONDS) as connection:
        started = time.perf_counter()
        connection.sendall(hello)
        answer = b""
        while chunk := connection.recv(4096):  # a timeout here is the old silence
            answer += chunk
        elapsed = time.perf_counter() - started
    print(f"\nTLS ClientHello on daphne's plain-HTTP port: refused and closed in {elapsed * 1000:.1f} ms")
    assert answer == TLS_PROTOCOL_VERSION_ALERT  # TLS's own refusal, then the end of the connection


def test_a_tls_client_fails_its_handshake_at_once(daphne):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with (
        socket.create_connection(("127.0.0.1", daphne.port), timeout=WAIT_SECONDS) as raw,
        pytest.raises(ssl.SSLError) as refused,
    ):
        context.wrap_socket(raw, server_hostname="127.0.0.1")
    assert "PROTOCOL_VERSION" in str(refused.value).upper() or "ALERT" in str(refused.value).upper()


def test_plain_http_on_the_same_port_is_served(daphne):
    assert talk(daphne, "Bonjour")["typeResponse"]


@pytest.mark.browser
def test_chromium_wss_attempt_fails_instead_of_hanging(browser, daphne):  # noqa: F811
    """What CV5 does first: a wss:// websocket to the server it talks to. The failure must come from the
    server's refusal (an error then a close), well before the browser's own handshake timeout."""
    page = browser.new_page()
    try:
        page.goto(daphne.url("/admin/login/"))
        outcome = page.evaluate(
            """([url, waitMs]) => new Promise((done) => {
                const started = performance.now();
                const events = [];
                const socket = new WebSocket(url);
                socket.onerror = () => events.push("error");
                socket.onopen = () => events.push("open");
                socket.onclose = (event) => done({events, code: event.code, ms: performance.now() - started});
                setTimeout(() => done({events, code: null, ms: performance.now() - started}), waitMs);
            })""",
            [f"wss://127.0.0.1:{daphne.port}/servlet//chatWs", WAIT_SECONDS * 1000],
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "wss-refused-on-plain-http.png"))
    finally:
        page.close()
    print(f"\nchromium's wss:// attempt on daphne's plain-HTTP port failed after {outcome['ms']:.0f} ms")
    assert outcome["code"] == 1006, outcome  # closed abnormally: the handshake failed, it did not time out here
    assert outcome["events"] == ["error"]
