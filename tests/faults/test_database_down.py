"""The database stops under load and comes back: a PostgreSQL of the test's own (never the machine's),
served by daphne (`make run`) and by gunicorn with a uvicorn worker (the production layout) at once.
While it is down every request is answered 503 with a JSON error and Retry-After, at once (no 500,
no request left waiting on the database's pool), and the server status answers 200 with status Ko
naming the failing checks, to anonymous callers and token holders alike. When it is back, the servers
serve again by themselves, and nothing is half-written: every talk answered 200 has its interaction
stored, and no dialog is stored without one."""

import base64
import time

import pytest

from tests.faults.client import Crowd, Visitor, call, count_by_status
from tests.servers import ADMIN_PASSWORD, BOT_UUID, Platform, PrivatePostgres

pytestmark = pytest.mark.skipif(not PrivatePostgres.available(), reason="needs PostgreSQL's initdb and pg_ctl")

DATABASE_DOWN = "the database is unavailable"
# How long the test waits for what it expects before failing (never a measure of speed).
PATIENCE_SECONDS = 60


def wait_until(condition, what: str):
    deadline = time.monotonic() + PATIENCE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not {what} after {PATIENCE_SECONDS} s")
        time.sleep(0.05)


def answers_since(visitor: Visitor, since: float, status: int) -> int:
    return sum(1 for turn in list(visitor.turns) if turn.answer.at > since and turn.answer.status == status)


def assert_unavailable(answer, what: str):
    assert answer.status == 503, (what, answer.status, answer.body[:300])
    assert answer.headers.get("content-type", "").startswith("application/json"), (what, answer.headers)
    body = answer.json()
    assert body["code"] == "DATABASE_UNAVAILABLE", (what, body)
    assert "database is unavailable" in body["error"], (what, body)
    assert int(answer.headers["retry-after"]) == body["retryAfter"] > 0, (what, answer.headers, body)


def assert_status_ko(answer, who: str):
    assert answer.status == 200, (who, answer.status, answer.body[:300])
    body = answer.json()
    assert body["status"] == "Ko", (who, body)
    failing = {problem["application"]: problem for problem in body["problems"]}
    assert failing["dialog"] == {"application": "dialog", "status": "Ko", "reason": DATABASE_DOWN}, (who, body)
    assert {"slogger", "analytic", "website"} <= set(failing), (who, body)
    return body


def stored_talks(postgres: PrivatePostgres, database: str) -> tuple[set, int]:
    """(context id, user input) of every stored interaction, and the dialogs stored without one."""
    import psycopg

    with psycopg.connect(postgres.url(database)) as connection:
        interactions = connection.execute(
            "SELECT d.uuid::text, i.user_input FROM dialogs_interaction i JOIN dialogs_dialog d ON d.id = i.dialog_id"
        ).fetchall()
        empty = connection.execute(
            "SELECT count(*) FROM dialogs_dialog d"
            " WHERE NOT EXISTS (SELECT 1 FROM dialogs_interaction i WHERE i.dialog_id = d.id)"
        ).fetchone()[0]
    return set(interactions), empty


def outage(postgres, mode: str, servers: dict, visitors: list, auth: dict, basic: str) -> dict:
    """Stop PostgreSQL (mode "fast": as an operator stops it; "immediate": as a crash) while the
    visitors talk, check what every server answers meanwhile, start it again and wait until each
    server and every visitor is answered 200. What was seen, for the report."""
    stopped_at = time.monotonic()  # from the moment it starts stopping
    postgres.stop(mode)
    wait_until(lambda: all(answers_since(v, stopped_at, 503) >= 3 for v in visitors), f"refused ({mode})")

    # While it is down: the status answers Ko, to anyone; everything else is a clean 503.
    status = {}
    for kind, server in servers.items():
        status[kind] = assert_status_ko(call(server.base, "GET", "/servlet/api/serverstatus"), kind)
        assert_status_ko(call(server.base, "GET", "/servlet/api/serverstatus", headers=auth), kind)
        assert_status_ko(call(server.base, "GET", "/api/serverstatus?details=true", headers=auth), kind)
        for method, path, fields, headers in (
            ("POST", "/servlet/api/authentication", {"login": "admin", "password": ADMIN_PASSWORD}, {}),
            ("GET", "/servlet/api/whoami", None, {"Authorization": basic}),
            ("GET", f"/servlet/api/bot/knowledgebase/export/{BOT_UUID}", None, auth),
            ("POST", f"/api/chat/welcomecall/{BOT_UUID}", {"language": "fr"}, {}),
            ("GET", "/demo/", None, {}),
            ("GET", "/admin/", None, {}),
        ):
            assert_unavailable(call(server.base, method, path, fields, headers), f"{kind} {path} ({mode})")

    postgres.start()
    started_at = time.monotonic()
    # Recovery, measured per server by a probe that talks until it is answered 200.
    recovered = {}
    for kind, server in servers.items():
        probe = Visitor(server.base, f"probe-{mode}-{kind}")
        wait_until(lambda probe=probe: probe.talk().answer.status == 200, f"{kind} recovered ({mode})")
        recovered[kind] = round(probe.turns[-1].answer.at - started_at, 2)
    wait_until(lambda: all(answers_since(v, started_at, 200) >= 3 for v in visitors), f"talking again ({mode})")
    for kind, server in servers.items():
        after = call(server.base, "GET", "/servlet/api/serverstatus?details=true", headers=auth)
        assert after.status == 200 and after.json()["status"] == "Ok", (kind, mode, after.body[:500])
    during = [t for v in visitors for t in v.turns if stopped_at < t.answer.at < started_at]
    return {"stopped_at": stopped_at, "while down": count_by_status(during), "recovered": recovered, "status": status}


def test_the_database_stops_under_load_clients_get_503_and_the_service_comes_back_by_itself(tmp_path):
    with PrivatePostgres() as postgres:
        url = postgres.create_database("bots")
        with Platform(tmp_path / "platform", database_url=url) as platform:
            servers = {"daphne": platform.servers[0], "uvicorn": platform.start_server("uvicorn")}
            auth = {"Authorization": platform.admin_token()}
            basic = "Basic " + base64.b64encode(f"admin:{ADMIN_PASSWORD}".encode()).decode()
            # Each process's first talk loads the models and builds the index: on a loaded machine that can take
            # longer than HUNG_SECONDS, which says nothing of an outage, so each server answers once first.
            for kind, server in servers.items():
                warm = Visitor(server.base, f"warm-{kind}")
                wait_until(lambda warm=warm: warm.talk().answer.status == 200, f"{kind} answering")
            visitors = [Visitor(server.base, f"{kind}-{n}") for kind, server in servers.items() for n in range(3)]
            with Crowd(visitors):
                wait_until(lambda: all(answers_since(v, 0, 200) >= 2 for v in visitors), "talking")
                outages = {
                    mode: outage(postgres, mode, servers, visitors, auth, basic) for mode in ("fast", "immediate")
                }

        # What clients saw: 200 before, between and after, 503 while down; never a 500, never a hung request.
        turns = [turn for visitor in visitors for turn in visitor.turns]
        seen = count_by_status(turns)
        unanswered = [
            (turn.text, turn.answer.seconds, turn.answer.body[:200]) for turn in turns if turn.answer.status == 0
        ]
        assert set(seen) == {200, 503}, (seen, unanswered)
        for turn in turns:
            if turn.answer.status == 503:
                assert_unavailable(turn.answer, turn.text)
                assert outages["fast"]["stopped_at"] < turn.answer.at, turn
        slowest_refusal = max(turn.answer.seconds for turn in turns if turn.answer.status == 503)

        # Nothing half-written.
        stored, empty_dialogs = stored_talks(postgres, "bots")
        answered = {(turn.answered_context, turn.text) for turn in turns if turn.answer.status == 200}
        assert answered <= stored, sorted(answered - stored)[:5]
        assert empty_dialogs == 0

    print(f"\ndatabase outages: visitors' answers {seen}; slowest 503 {slowest_refusal:.3f} s")
    for mode, seen_then in outages.items():
        print(
            f"  {mode}: while down {seen_then['while down']}; 200 again after PostgreSQL started"
            f" {seen_then['recovered']} s; anonymous status {seen_then['status']['uvicorn']}"
        )
