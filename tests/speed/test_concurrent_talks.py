"""Talks of different dialogs never wait on each other, on the database of the run, through a real
server (daphne, as `make run` serves): a talk writes only its own dialog's row and its own interaction.

- PostgreSQL: while a transaction that wrote what a talk writes (an interaction, its dialog's row) stays
  open, a talk of that dialog waits and a talk of another dialog is answered; once it ends, the waiting
  talk is answered and stored too.
- Both databases: many visitors talking at once in their own dialogs all get their answers, every talk
  is stored in the order its visitor asked, and the server never meets "database is locked" (SQLite
  serialises writers: WAL and the busy timeout make them queue instead of fail)."""

import base64
import http.client
import json
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import decode
from tests.servers import BOT_UUID, Platform

# How long a request may take before the test gives up on it (never a measure of speed).
PATIENCE_SECONDS = 60
TALK = f"/servlet/api/chat/talk/{BOT_UUID}"
QUESTIONS = ["Quels sont vos horaires d'ouverture ?", "comment faire un virement", "xyzzy plugh", "carte"]


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("concurrent-talks")) as platform:
        yield platform


def talk(server, text: str, context_id: str = "") -> tuple[int, str]:
    """One talk over its own connection; (status, context id of the answer)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=PATIENCE_SECONDS)
    try:
        body = urllib.parse.urlencode({"userInput": text, "language": "fr", "contextId": context_id})
        connection.request("POST", TALK, body, {"Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        payload = response.read()
    finally:
        connection.close()
    if response.status != 200:
        return response.status, payload.decode("utf-8", "replace")[:300]
    return 200, base64.b64decode(json.loads(payload)["values"]["contextId"]).decode()


def stored_inputs(platform, context_id: str) -> list[str]:
    """What the visitor wrote in the dialog, in the order stored, read by the platform's history call."""
    connection = http.client.HTTPConnection("127.0.0.1", platform.servers[0].port, timeout=PATIENCE_SECONDS)
    body = urllib.parse.urlencode({"contextId": context_id})
    connection.request(
        "POST", f"/servlet/api/chat/history/{BOT_UUID}", body, {"Content-Type": "application/x-www-form-urlencoded"}
    )
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    assert response.status == 200, payload[:300]
    values = decode(json.loads(payload)["values"])
    assert values["contextId"] == context_id, values
    return [interaction["user"] for interaction in values["interactions"]]


def database_url(platform) -> str:
    return platform.env["DATABASE_URL"]


def test_a_dialog_locked_by_a_transaction_holds_only_its_own_talks(platform):
    url = database_url(platform)
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("PostgreSQL run only: SQLite has one writer at a time by design")
    import psycopg

    server = platform.servers[0]
    status, held = talk(server, "Bonjour")
    assert status == 200, held
    status, free = talk(server, "Bonjour")
    assert status == 200, free

    with psycopg.connect(url) as locker:
        # Another transaction writes what a talk of the first dialog writes (an interaction, the
        # dialog's row) and stays open, as a talk stuck half-way would.
        columns = ", ".join(
            f'"{name}"'
            for (name,) in locker.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_name = 'dialogs_interaction' AND column_name <> 'id'"
            )
        )
        dialog_id = locker.execute("SELECT id FROM dialogs_dialog WHERE uuid = %s", (held,)).fetchone()[0]
        locker.execute(
            f"INSERT INTO dialogs_interaction ({columns}) SELECT {columns} FROM dialogs_interaction"
            " WHERE dialog_id = %s",
            (dialog_id,),
        )
        locker.execute("UPDATE dialogs_dialog SET last_activity = now() WHERE id = %s", (dialog_id,))
        waiting = ThreadPoolExecutor(1)
        held_talk = waiting.submit(talk, server, "comment faire un virement", held)
        # The other dialog's talk is answered while the lock is held…
        status, context = talk(server, "comment faire un virement", free)
        assert (status, context) == (200, free)
        # … and the locked dialog's talk is still waiting for it (it writes that row).
        assert not held_talk.done()
        locker.rollback()
    assert held_talk.result(timeout=PATIENCE_SECONDS) == (200, held)
    waiting.shutdown()
    assert stored_inputs(platform, held) == ["Bonjour", "comment faire un virement"]
    assert stored_inputs(platform, free) == ["Bonjour", "comment faire un virement"]


def test_visitors_talking_at_once_in_their_own_dialogs_are_all_answered_and_stored(platform):
    server = platform.servers[0]
    visitors, turns = 12, 5
    start = threading.Barrier(visitors)

    def visitor(number: int) -> tuple[str, list[int]]:
        start.wait(timeout=PATIENCE_SECONDS)
        context, statuses = "", []
        for turn in range(turns):
            status, answer = talk(server, f"{QUESTIONS[turn % len(QUESTIONS)]} {number}-{turn}", context)
            statuses.append(status)
            assert status == 200, answer
            context = answer
        return context, statuses

    with ThreadPoolExecutor(visitors) as pool:
        results = list(pool.map(visitor, range(visitors)))
    assert all(statuses == [200] * turns for _, statuses in results)
    assert len({context for context, _ in results}) == visitors
    for number, (context, _) in enumerate(results):
        asked = [f"{QUESTIONS[turn % len(QUESTIONS)]} {number}-{turn}" for turn in range(turns)]
        assert stored_inputs(platform, context) == asked
    log = "".join(server.output() for server in platform.servers)
    assert "database is locked" not in log
    assert "Traceback" not in log
