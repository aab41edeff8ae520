"""The production layout as `make prod` starts it (deploy/prod.py): nginx with TLS in front of gunicorn's
two uvicorn workers, kept running by supervisord, on a PostgreSQL and a Redis of the test's own. Checked
from outside, over https through nginx: a talk and its stored interaction, static files served by
nginx, bodies over their limits, the real chatbox talking over wss://, both workers serving, and a
killed worker, gunicorn master and nginx master coming back by themselves. Screenshots go to
test-results/deploy/."""

import base64
import contextlib
import json
import os
import shutil
import signal
import ssl
import urllib.parse
from pathlib import Path
from socket import create_connection

import psycopg
import pytest

from deploy.scratch import ScratchLayout, alive
from tests.servers import BOT_UUID, PrivatePostgres, PrivateRedis, scratch_database

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent.parent
SHOTS = REPO / "test-results" / "deploy"
TALK = f"/servlet/api/chat/talk/{BOT_UUID}"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
WEBSOCKET_TRANSPORT = """
new MutationObserver(function (changes) {
  changes.forEach(function (change) {
    change.addedNodes.forEach(function (node) {
      if (node.tagName === "SCRIPT" && node.dataset && node.dataset.bot) node.dataset.transport = "websocket";
    });
  });
}).observe(document, { childList: true, subtree: true });
"""


def nginx_obtainable() -> bool:
    return bool(shutil.which("nginx") or os.path.exists("/usr/sbin/nginx") or shutil.which("apt-get"))


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """CI's services run: a scratch database on the machine's PostgreSQL; the embedded run: a private one."""
    if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        url, drop = scratch_database(tmp_path_factory.mktemp("prod-db"), "prod_layout")
        yield url
        drop()
        return
    if not PrivatePostgres.available():
        pytest.skip("neither DATABASE_URL names a PostgreSQL nor are initdb/pg_ctl installed for a private one")
    with PrivatePostgres() as postgres:
        yield postgres.create_database("prod_layout")


@pytest.fixture(scope="module")
def layout(database, tmp_path_factory):
    if not nginx_obtainable():
        pytest.skip("nginx is not installed and apt-get is not available to install Debian's nginx")
    redis = PrivateRedis(tmp_path_factory.mktemp("prod-redis")).start()
    try:
        env = {"MATCHING_EMBEDDINGS": "off", "DEMO_ADMIN_PASSWORD": "prod-admin-" + os.urandom(6).hex()}
        with ScratchLayout(database, redis.url, workers=2, env=env) as running:
            running.admin_password = env["DEMO_ADMIN_PASSWORD"]
            yield running
    finally:
        redis.stop()


def talk(layout, text: str, context: str = "") -> tuple[int, dict]:
    path = TALK + (f"/{context}" if context else "")
    body = urllib.parse.urlencode({"userInput": text, "language": "fr"}).encode()
    status, _, answer = layout.request("POST", path, body, FORM)
    values = json.loads(answer).get("values", {}) if answer.startswith(b"{") else {}
    return status, {key: decoded(value) for key, value in values.items()}


def decoded(value):
    if not isinstance(value, str):
        return value
    try:
        return base64.b64decode(value, validate=True).decode()
    except ValueError:
        return value


def stored_inputs(database: str, context: str) -> list[str]:
    with psycopg.connect(database) as connection:
        rows = connection.execute(
            "SELECT i.user_input FROM dialogs_interaction i JOIN dialogs_dialog d ON d.id = i.dialog_id "
            "WHERE d.uuid = %s ORDER BY i.id",
            (context,),
        ).fetchall()
    return [row[0] for row in rows]


def test_a_talk_over_https_through_nginx_is_answered_and_stored(layout, database):
    status, answer = talk(layout, "Quels sont vos horaires d'ouverture ?")
    assert status == 200, answer
    assert "mardi au samedi" in answer["text"]
    context = answer["contextId"]
    status, again = talk(layout, "j'ai perdu ma carte", context)
    assert status == 200 and again["contextId"] == context
    assert stored_inputs(database, context) == ["Quels sont vos horaires d'ouverture ?", "j'ai perdu ma carte"]

    # The certificate was checked (the layout's own, for 127.0.0.1); nginx answered, over HTTP/1.1 here.
    _, headers, _ = layout.request("GET", "/servlet/api/serverstatus")
    assert headers["server"] == "nginx"
    # Plain HTTP only redirects to https, keeping the method (308).
    import http.client

    plain = http.client.HTTPConnection("127.0.0.1", layout.http_port, timeout=10)
    plain.request("POST", TALK, body=b"userInput=x", headers=FORM)
    redirect = plain.getresponse()
    assert redirect.status == 308
    assert redirect.getheader("Location") == f"https://127.0.0.1:{layout.https_port}{TALK}"
    plain.close()


def test_static_files_are_served_by_nginx_not_by_the_workers(layout):
    status, headers, body = layout.request("GET", "/static/chatbox/chatbox.js")
    assert status == 200
    assert body == (REPO / "static" / "chatbox" / "chatbox.js").read_bytes()
    # nginx's `expires 1h`: whitenoise, in the workers, would say max-age=60.
    assert headers["cache-control"] == "max-age=3600"
    assert headers["server"] == "nginx"
    assert headers["content-type"] == "application/javascript"


def test_bodies_over_their_limit_are_refused_by_nginx(layout):
    # A chat call: 64 KB (CHAT_BODY_MAX_BYTES), refused from its Content-Length, in the servlet's shape.
    body = b"userInput=" + b"a" * 70_000
    status, headers, answer = layout.request("POST", TALK, body, {**FORM, "Origin": "https://shop.example"})
    assert status == 413
    refusal = json.loads(answer)
    assert refusal["code"] == "TOO_LARGE" and refusal["maxBytes"] == 64 * 1024
    assert headers["access-control-allow-origin"] == "*"  # the chatbox on another site can read it

    # The same without a Content-Length (chunked): cut off at the limit while it streams.
    connection = layout.connection()
    chunks = (b"a" * 8192 for _ in range(64))  # 512 KB
    connection.request("POST", TALK, body=chunks, headers=FORM, encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["maxBytes"] == 64 * 1024
    connection.close()

    # Any other URL: DATA_UPLOAD_MAX_MEMORY_SIZE (5 MB); an import: KB_UPLOAD_MAX_BYTES (50 MB).
    status, _, answer = layout.request("POST", "/servlet/api/context", b"a" * (5 * 1024 * 1024 + 1), FORM)
    assert status == 413 and json.loads(answer)["maxBytes"] == 5 * 1024 * 1024
    import_path = f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}"
    connection = layout.connection()
    connection.putrequest("POST", import_path)
    connection.putheader("Content-Type", "application/xml")
    connection.putheader("Content-Length", str(50 * 1024 * 1024 + 1))
    connection.endheaders()  # nothing of the body is sent: the answer comes from the length alone
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["maxBytes"] == 50 * 1024 * 1024
    connection.close()

    # A body under the limit that nginx keeps in a temporary file (over 16 KB) reaches the app.
    status, answer = talk(layout, "comment faire un virement " + "x" * 30_000)
    assert status == 200, answer


def send_through_nginx(layout, path: str, size: int, headers: dict) -> tuple[int | None, bytes, int]:
    """POST a body of `size` bytes over TLS, as fast as nginx takes it, until an answer arrives:
    (status, answer body, body bytes nginx had taken by then)."""
    import select
    import socket

    raw = socket.create_connection(("127.0.0.1", layout.https_port), timeout=10)
    sock = layout.ssl_context().wrap_socket(raw, server_hostname="127.0.0.1")
    head = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {size}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    sock.sendall("\r\n".join(head).encode() + b"\r\n\r\n")
    sock.setblocking(False)
    piece, sent, received = b"x" * 65536, 0, b""
    try:
        while not complete_answer(received) and sent < size:
            readable, writable, _ = select.select([sock], [sock], [], 5)
            if readable or sock.pending():
                with contextlib.suppress(ssl.SSLWantReadError):
                    data = sock.recv(65536)
                    if not data:
                        break
                    received += data
            elif writable:
                with contextlib.suppress(ssl.SSLWantWriteError, ssl.SSLWantReadError):
                    sent += sock.send(piece[: size - sent])
        sock.setblocking(True)
        sock.settimeout(10)
        while not complete_answer(received) and (data := sock.recv(65536)):
            received += data
    finally:
        sock.close()
    answer = complete_answer(received)
    return (answer[0], answer[1], sent) if answer else (None, b"", sent)


def complete_answer(received: bytes) -> tuple[int, bytes] | None:
    """(status, body) once a whole answer with its Content-Length is in `received`."""
    head, found, body = received.partition(b"\r\n\r\n")
    if not found:
        return None
    lines = head.decode("latin-1").split("\r\n")
    length = next((int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length:")), 0)
    return (int(lines[0].split()[1]), body[:length]) if len(body) >= length else None


def test_an_upload_the_app_refuses_from_its_headers_is_not_read_whole_by_nginx(layout):
    """The upload locations pass the body on as it comes (proxy_request_buffering off): the app's 401 for an
    anonymous 49 MB import arrives while nginx has taken a small part of the body (it used to store all
    49 MB before the app saw the request); a chatbox file to no dialog gets the app's 404 page the same way,
    and a chatbox file has its own limit."""
    size = 49 * 1024 * 1024
    path = f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}"
    status, body, sent = send_through_nginx(layout, path, size, {"Content-Type": "application/xml"})
    assert status == 401 and json.loads(body)["code"] == "MISSING_CREDENTIALS"
    print(f"anonymous 49 MB import through nginx: 401 after {sent} bytes of the body")
    # What the kernels' socket buffers hold between the client, nginx and the worker (7.5 MB measured);
    # with nginx buffering the body, the 401 came after all 49 MB.
    assert sent < size / 4

    upload = "/servlet/fileupload?ctx=5f0c2b1e-0000-4000-8000-00000000beef&cb=cb"
    multipart = {"Content-Type": "multipart/form-data; boundary=b"}
    status, body, sent = send_through_nginx(layout, upload, 9 * 1024 * 1024, multipart)
    assert status == 404 and b"UNKNOWN_CONTEXT" in body
    print(f"9 MB chatbox file to no dialog through nginx: 404 after {sent} bytes of the body")

    # A chatbox file has its own limit (CHAT_UPLOAD_MAX_BYTES, 10 MB), not the 5 MB of other URLs.
    connection = layout.connection()
    connection.putrequest("POST", upload)
    connection.putheader("Content-Type", "multipart/form-data; boundary=b")
    connection.putheader("Content-Length", str(10 * 1024 * 1024 + 1))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["maxBytes"] == 10 * 1024 * 1024
    connection.close()


def test_an_import_with_the_right_credentials_streams_through_nginx_and_is_done(layout):
    fields = urllib.parse.urlencode({"login": "admin", "password": layout.admin_password}).encode()
    status, _, answer = layout.request("POST", "/servlet/api/authentication", fields, FORM)
    assert status == 200, answer
    token = json.loads(answer)["token"]
    export = f"/servlet/api/bot/knowledgebase/export/{BOT_UUID}"
    status, _, exported = layout.request("GET", export, headers={"Authorization": token})
    assert status == 200
    path = f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}"
    headers = {"Authorization": token, "Content-Type": "application/xml"}
    status, _, answer = layout.request("POST", path, exported, headers)
    assert status == 200, answer
    assert json.loads(answer)["imported"]["knowledgeItems"]["total"] > 0
    assert layout.request("GET", export, headers={"Authorization": token})[2] == exported


def test_the_chatbox_talks_over_wss_through_nginx(layout, database, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="fr-FR", ignore_https_errors=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    sockets, frames = [], []

    def opened(socket):
        sockets.append(socket.url)
        socket.on("framereceived", lambda payload: frames.append(payload))

    page.on("websocket", opened)

    # The demo page as served, with the chatbox told to talk over its websocket, as a site that embeds it
    # with data-transport="websocket" does: the attribute is set on its script tag as the parser adds it.
    # (Not by rewriting the page in a route: a page that Playwright serves is not "local" for chromium's
    # local-network checks, which then refuse its websocket to 127.0.0.1.)
    page.add_init_script(WEBSOCKET_TRANSPORT)
    try:
        from playwright.sync_api import expect

        page.goto(layout.url("/demo/"))
        expect(page.locator(".dcb-row-bot").first).to_contain_text("je suis Clara")
        box = page.locator("#dcb-input")
        box.fill("Quels sont vos horaires d'ouverture ?")
        box.press("Enter")
        expect(page.locator(".dcb-row-bot:not(.dcb-typing)").last).to_contain_text("mardi au samedi")
        SHOTS.mkdir(parents=True, exist_ok=True)
        # The answer fades in (inside the chatbox's shadow root): the shot shows it as it ends.
        page.screenshot(path=str(SHOTS / "chatbox-over-wss.png"), animations="disabled")
    finally:
        context.close()

    assert f"wss://127.0.0.1:{layout.https_port}/servlet/chatWs" in sockets
    answers = [json.loads(frame) for frame in frames if frame.startswith("{")]
    talked = [frame for frame in answers if frame.get("type") == "talkResponse"]
    assert any("mardi au samedi" in decoded(frame["values"]["text"]) for frame in talked)
    context_id = decoded(talked[-1]["values"]["contextId"])
    assert "Quels sont vos horaires d'ouverture ?" in stored_inputs(database, context_id)


def established_on(pid: int, port: int) -> int:
    """The process's TCP connections accepted on `port` (its sockets matched against /proc/net/tcp)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for line in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].split(":")[1], 16)
        if local_port == port and fields[3] == "01" and fields[9] in inodes:  # 01: ESTABLISHED
            count += 1
    return count


def test_both_workers_serve(layout):
    from websockets.sync.client import connect

    workers = layout.worker_pids()
    assert len(workers) == 2
    context = ssl.create_default_context(cafile=str(layout.certificate))
    frame = {
        "type": "talk",
        "parameters": {
            "contextId": "",
            "botId": base64.b64encode(BOT_UUID.encode()).decode(),
            "language": base64.b64encode(b"fr").decode(),
            "space": base64.b64encode(b"Defaut").decode(),
            "userInput": base64.b64encode(b"j'ai perdu ma carte").decode(),
            "solutionUsed": base64.b64encode(b"ASSISTANT").decode(),
        },
    }
    opened = []
    with contextlib.ExitStack() as sockets:
        # Each websocket is its own connection to whichever worker accepts it (nginx pools none of
        # them): open them until every worker holds one, each answering a talk.
        while len(opened) < 40:
            url = f"wss://127.0.0.1:{layout.https_port}/servlet/chatWs"
            # Generous timeouts: a worker that builds the demo bot's matcher for its first talk, on a
            # machine running the rest of the suite beside it, took over 10 s to accept once.
            try:
                socket = sockets.enter_context(connect(url, ssl=context, open_timeout=30))
                opened.append(socket)
                socket.send(json.dumps(frame))
                answer = json.loads(socket.recv(timeout=30))
            except TimeoutError as error:  # once, under load: what the programs said then
                held = {pid: established_on(pid, layout.app_port) for pid in workers}
                raise AssertionError(
                    f"websocket {len(opened)}: {error!r}; connections held per worker: {held}{layout.log_tails(6000)}"
                ) from error
            assert answer["type"] == "talkResponse"
            assert "opposition" in decoded(answer["values"]["text"])
            held = {pid: established_on(pid, layout.app_port) for pid in workers}
            if len(opened) >= 4 and all(held.values()):
                break
        assert all(held.values()), f"connections held per worker after {len(opened)} websockets: {held}"


def test_a_killed_worker_is_replaced_by_gunicorn(layout):
    master = layout.app_master_pid()
    killed, kept = layout.worker_pids()
    os.kill(killed, signal.SIGKILL)

    def replaced():
        pids = layout.worker_pids()
        return pids if len(pids) == 2 and killed not in pids else None

    workers = layout.wait_for(replaced, "gunicorn replaces its killed worker")
    assert kept in workers and layout.app_master_pid() == master
    layout.wait_for(layout.answers, "the layout answers")
    assert talk(layout, "comment faire un virement")[0] == 200


def test_a_killed_gunicorn_master_is_restarted_by_supervisord(layout):
    master, workers = layout.app_master_pid(), layout.worker_pids()
    # A client that never finishes its request, straight to gunicorn's port: an orphaned worker must
    # not wait on it forever (nobody is left to kill it after gunicorn's graceful timeout).
    stalled = create_connection(("127.0.0.1", layout.app_port))
    stalled.sendall(
        f"POST {TALK} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        "Content-Length: 1000\r\n\r\nuserInput=".encode()
    )
    os.kill(master, signal.SIGKILL)

    def restarted():
        pid = layout.app_master_pid()
        return pid if pid and pid != master and len(layout.worker_pids()) == 2 else None

    new_master = layout.wait_for(restarted, "supervisord restarts gunicorn's master, with two workers")
    # The old workers died with their master (they would keep the port, unsupervised).
    layout.wait_for(lambda: not any(alive(pid) for pid in workers), "the old workers exit")
    stalled.close()
    assert new_master != master
    layout.wait_for(layout.answers, "the layout answers")
    assert talk(layout, "comment faire un virement")[0] == 200


def test_a_killed_nginx_master_is_restarted_by_supervisord(layout):
    master, workers = layout.nginx_master_pid(), layout.nginx_worker_pids()
    assert master and workers
    os.kill(master, signal.SIGKILL)

    def restarted():
        pid = layout.nginx_master_pid()
        return pid and pid != master and layout.answers()

    layout.wait_for(restarted, "supervisord restarts nginx, which answers")
    # The old master's workers were stopped (by deploy/reaper.py), so the new one could bind the ports.
    assert not any(alive(pid) for pid in workers)
    assert talk(layout, "comment faire un virement")[0] == 200


def environment_of(pid: int) -> dict:
    entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(entry.decode(errors="replace").split("=", 1) for entry in entries if b"=" in entry)


def test_the_background_work_is_a_supervised_program_of_its_own(layout):
    """The web workers only serve (BACKGROUND_WORK=separate); manage.py run_background runs the vector worker
    and live chat's clocks as supervisord's `background` program, started again when it dies."""
    background = layout.wait_for(layout.background_pid, "the background program runs")
    assert b"run_background" in Path(f"/proc/{background}/cmdline").read_bytes().split(b"\0")
    assert background not in layout.worker_pids()
    for pid in layout.worker_pids():
        assert environment_of(pid)["BACKGROUND_WORK"] == "separate"
    log = layout.dir / "logs" / "background.log"
    started = "Background work running as"
    assert f"{started} " in log.read_text() and "vector worker, live chat's clocks" in log.read_text()

    os.kill(background, signal.SIGKILL)

    def restarted():
        pid = layout.background_pid()
        return pid if pid and pid != background and log.read_text().count(started) == 2 else None

    layout.wait_for(restarted, "supervisord starts the background work again")
    assert talk(layout, "comment faire un virement")[0] == 200
