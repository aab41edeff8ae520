"""An upload its view would refuse is answered from its headers, before its body is read, under each server
the README recommends (daphne, gunicorn + uvicorn, gunicorn sync): an anonymous or wrongly authenticated
49 MB import, or one by a user whose role may not import, gets the view's 401 / 403 (readable by a chatbox on
another site), and a chatbox file for no live dialog its 404 page, while the server's kernel took a fraction
of the body and the server's memory stayed flat. The tests measure bytes and memory, never time.

Each upload URL gets a body just under its own limit (the imports' 50 MB, the chatbox file's 10 MB, the
Rasa import's 5 MB), so that only the credentials can refuse it early. The servers run with the default
limits, on a platform of their own."""

import base64
import json
import secrets
import threading
from urllib.parse import urlencode

import pytest

from bots.servlet.limits import UPLOAD_DEFAULT
from tests.chatbox_calls.conftest import CALLBACK, FIELD, cv5_answer, png
from tests.conftest import decode
from tests.limits import processes, wire
from tests.limits.conftest import KINDS, MB, talk
from tests.servers import ADMIN_PASSWORD, BOT_UUID, Browser, Platform

IMPORT_LIMIT = 50 * MB  # KB_UPLOAD_MAX_BYTES's default
OTHER_LIMIT = 5 * MB
NEAR_IMPORT_LIMIT = 49 * MB
# Resident memory a server may grow by while it refuses a body: a request's own objects, never the body.
MEMORY_SLACK = 16 * MB
OPERATOR = "operatrice-sans-import"
OPERATOR_PASSWORD = "Op3rat0r-" + "x" * 8

# (path, body size): each an upload URL with a view that checks before the body.
IMPORTS = {
    "knowledge-base import": (f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}", NEAR_IMPORT_LIMIT),
    "bot-data import": (f"/servlet/api/bot/data/import/{BOT_UUID}", NEAR_IMPORT_LIMIT),
    "gallery import (/api/)": (f"/api/bot/gallery/import/{BOT_UUID}/", NEAR_IMPORT_LIMIT),
    "Rasa import": (f"/servlet/api/externalmatchers/rasa/import/{BOT_UUID}?language=fr", OTHER_LIMIT - MB // 2),
}


def basic(login: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("before-body"), processes=0) as platform:
        for kind in KINDS:
            server = platform.start_server(kind)
            talk(server, "Bonjour")
            # What a server's first early answer loads once (the URL resolver, the views' modules) is not
            # the body's doing: one small refused upload before anything is measured.
            answer = wire.send(server.port, IMPORTS["knowledge-base import"][0], 1024)
            assert answer.status == 401, answer
        platform.add_operator(OPERATOR, OPERATOR_PASSWORD)
        platform.token = platform.admin_token()
        platform.operator_token = Browser(platform.servers[0]).post_form(
            "/servlet/api/authentication", {"login": OPERATOR, "password": OPERATOR_PASSWORD}
        )["token"]
        yield platform


@pytest.fixture(params=KINDS)
def server(request, platform):
    return next(server for server in platform.servers if server.kind == request.param)


def credentials(platform, who: str) -> tuple[dict, int, str]:
    """(headers, the status the view answers, its code) for each kind of caller without the right."""
    if who == "anonymous":
        return {}, 401, "MISSING_CREDENTIALS"
    if who == "a token that does not exist":
        return {"Authorization": "dyt_" + secrets.token_hex(32)}, 401, "INVALID_CREDENTIALS"
    if who == "a wrong password":
        # Its own login each time: the failed-login guard counts per login (test_..._once below counts).
        return {"Authorization": basic(f"intrus-{secrets.token_hex(4)}", "pas-le-bon")}, 401, "INVALID_CREDENTIALS"
    if who == "an operator (may not import)":
        return {"Authorization": platform.operator_token}, 403, "FORBIDDEN"
    raise AssertionError(who)


def send_measured(server, path: str, size: int, **options) -> tuple[wire.Answer, int]:
    """Send the body; return the answer and how much the server's processes' peak memory grew."""
    pids = server.process_ids()
    before = processes.resident(pids)
    processes.reset_peaks(pids)
    answer = wire.send(server.port, path, size, **options)
    growth = processes.peaks(pids) - before
    print(
        f"{server.kind} {path} {size} bytes: {answer.status}, {answer.acked} bytes acknowledged, "
        f"peak memory +{growth} bytes"
    )
    return answer, growth


def assert_taken_little(answer: wire.Answer, size: int, growth: int):
    # Refused from its headers: the server took no more than its kernel buffers by itself, a fraction of
    # the body, and its memory did not grow with it.
    assert answer.acked < processes.receive_buffer_max() + MB
    assert answer.acked < size / 2
    assert growth < MEMORY_SLACK


@pytest.mark.parametrize(
    "who", ["anonymous", "a token that does not exist", "a wrong password", "an operator (may not import)"]
)
@pytest.mark.parametrize("url", IMPORTS)
def test_an_import_the_caller_may_not_make_is_refused_before_its_body_is_read(platform, server, url, who):
    path, size = IMPORTS[url]
    headers, status, code = credentials(platform, who)
    answer, growth = send_measured(server, path, size, headers=headers)
    assert answer.status == status, answer
    assert answer.json()["code"] == code
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.headers["access-control-allow-origin"] == "*"  # the servlet's CORS, as the view's answer
    if server.kind != "wsgi":  # a WSGI application may not name the connection; gunicorn's sync worker closes
        assert answer.headers["connection"] == "close"
    assert_taken_little(answer, size, growth)
    # The server is alive and serves the next request.
    status, _ = Browser(server).request("GET", "/servlet/api/serverstatus")
    assert status == 200


def test_an_import_to_an_unknown_bot_is_the_view_s_404_before_the_body(platform, server):
    path = "/servlet/api/bot/knowledgebase/import/00000000-0000-4000-8000-00000000dead"
    answer, growth = send_measured(server, path, NEAR_IMPORT_LIMIT, headers={"Authorization": platform.token})
    assert (answer.status, answer.json()["code"]) == (404, "UNKNOWN_BOT")
    assert_taken_little(answer, NEAR_IMPORT_LIMIT, growth)


def test_a_chunked_anonymous_import_is_refused_before_its_first_piece_is_read(server):
    path, size = IMPORTS["knowledge-base import"]
    answer, growth = send_measured(server, path, size, chunked=True)
    assert (answer.status, answer.json()["code"]) == (401, "MISSING_CREDENTIALS")
    assert_taken_little(answer, size, growth)


def test_a_client_that_waits_for_100_continue_is_refused_without_sending_the_body(server):
    path, size = IMPORTS["knowledge-base import"]
    answer = wire.send(server.port, path, size, headers={"Expect": "100-continue"}, send_body=False, timeout=20)
    assert (answer.status, answer.json()["code"]) == (401, "MISSING_CREDENTIALS")
    assert answer.offered == 0
    if server.kind != "wsgi":
        # gunicorn's sync worker answers "100 Continue" itself before the application sees the request.
        assert answer.interim == []


@pytest.mark.parametrize("query", ["unknown dialog", "no dialog named"])
def test_a_chatbox_file_for_no_live_dialog_is_refused_before_its_body_is_read(server, query):
    size = UPLOAD_DEFAULT - MB // 2
    fields = {"fin": FIELD, "cb": CALLBACK}
    if query == "unknown dialog":
        fields["ctx"] = "5f0c2b1e-0000-4000-8000-00000000beef"
    answer, growth = send_measured(server, "/servlet/fileupload?" + urlencode(fields), size)
    status, code = (404, "UNKNOWN_CONTEXT") if query == "unknown dialog" else (400, "MISSING_FIELD")
    assert answer.status == status, answer
    assert answer.headers["content-type"].startswith("text/html")  # the page CV5 reads, as the view's
    params = cv5_answer(answer.body.decode())["params"]
    assert (params["status"], params["code"]) == ("fail", code)
    assert_taken_little(answer, size, growth)


def test_ten_anonymous_49_mb_imports_at_once_leave_the_server_s_memory_flat(server):
    path, size = IMPORTS["knowledge-base import"]
    pids = server.process_ids()
    before = processes.resident(pids)
    processes.reset_peaks(pids)
    answers = []
    senders = [threading.Thread(target=lambda: answers.append(wire.send(server.port, path, size))) for _ in range(10)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    growth = processes.peaks(pids) - before
    print(f"{server.kind}: 10 x {size} bytes, {sum(a.acked for a in answers)} acknowledged, peak +{growth} bytes")
    assert [answer.status for answer in answers] == [401] * 10
    assert sum(answer.acked for answer in answers) < 10 * (processes.receive_buffer_max() + MB)
    assert growth < 2 * MEMORY_SLACK


def test_a_wrong_password_at_the_door_counts_once_in_the_failed_login_guard(platform, server):
    """Checked from the headers through the same accounts.permissions functions as the view: the third
    failure slows the login (429 with Retry-After, still before the body), no sooner."""
    login = f"{OPERATOR}-{server.kind}"
    platform.add_operator(login, OPERATOR_PASSWORD)
    path, size = IMPORTS["knowledge-base import"]
    wrong = {"Authorization": basic(login, "pas-le-bon")}
    statuses = []
    for _ in range(4):
        answer, growth = send_measured(server, path, size, headers=wrong)
        statuses.append(answer.status)
        assert_taken_little(answer, size, growth)
    assert statuses == [401, 401, 401, 429]
    assert answer.json()["code"] == "LOGIN_SLOWED"
    assert int(answer.headers["retry-after"]) >= 1


def exported_knowledge_base(platform) -> bytes:
    status, body = Browser(platform.servers[0]).request(
        "GET", f"/servlet/api/bot/knowledgebase/export/{BOT_UUID}", headers={"Authorization": platform.token}
    )
    assert status == 200, body[:300]
    return body


@pytest.mark.parametrize("how", ["token", "token, waiting for 100 Continue", "Basic", "token, chunked"])
def test_an_import_the_caller_may_make_goes_through_whole(platform, server, how):
    """The same checks let a right caller through: the body (over several socket reads, so that daphne
    holds and hands on what came with the headers) is read and imported."""
    exported = exported_knowledge_base(platform)
    head, tail = wire.multipart_parts(len(exported), filename="knowledge.xml")
    body = head + exported + b"<!-- " + b"x" * (300 * 1024) + b" -->" + tail  # over several socket reads
    headers = {"Authorization": basic("admin", ADMIN_PASSWORD) if how == "Basic" else platform.token}
    if "100 Continue" in how:
        headers["Expect"] = "100-continue"
    answer = wire.send(
        server.port,
        f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}",
        0,
        body=body,
        chunked="chunked" in how,
        content_type=f"multipart/form-data; boundary={wire.BOUNDARY}",
        headers=headers,
    )
    assert answer.status == 200, answer
    assert answer.json()["imported"]["knowledgeItems"]["total"] > 0
    if "100 Continue" in how:
        assert answer.interim == ["HTTP/1.1 100 Continue"]
    assert exported_knowledge_base(platform) == exported


def test_a_chatbox_file_for_a_live_dialog_is_stored(server):
    form = urlencode({"userInput": "Bonjour", "language": "fr", "space": "Defaut", "solutionUsed": "ASSISTANT"})
    status, answered = Browser(server).request(
        "POST",
        f"/servlet/api/chat/talk/{BOT_UUID}",
        form.encode(),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 200, answered[:300]
    context_id = decode(json.loads(answered)["values"])["contextId"]
    boundary = "chatbox-upload-boundary"
    content = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{FIELD}"; filename="photo.png"\r\n'
            "Content-Type: image/png\r\n\r\n"
        ).encode()
        + png()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    path = "/servlet/fileupload?" + urlencode({"ctx": context_id, "fin": FIELD, "cb": CALLBACK})
    answer = wire.send(server.port, path, 0, body=content, content_type=f"multipart/form-data; boundary={boundary}")
    assert answer.status == 200, answer
    assert cv5_answer(answer.body.decode())["params"] == {"filesUploaded": ["photo.png"], "status": "success"}
