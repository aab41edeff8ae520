"""The background work in its own process (BACKGROUND_WORK=separate, manage.py run_background), against real
server processes on one PostgreSQL and one Redis: the servers then neither compute vector jobs nor run live
chat's clocks; two background processes share the work without doing any of it twice; one killed (SIGKILL)
in the middle of a vector job leaves it to the next, which finishes it without recomputing what was stored."""

import os
import re
import shutil
import signal
import subprocess
import time
import urllib.parse
import uuid
from contextlib import ExitStack
from pathlib import Path

import psycopg
import pytest

from tests.livechat.test_processes import Console, Visitor
from tests.servers import BOT_UUID, PYTHON, ROOT, Browser, Platform

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL") and shutil.which("redis-server") is None,
    reason="needs REDIS_URL, or redis-server to start a Redis of its own",
)

# The servers as make prod runs them: the background work is not theirs. Embeddings on, and a bot missing
# more than 5 vectors leaves them to a vector job; jobs are looked for twice a second.
SEPARATE = {
    "BACKGROUND_WORK": "separate",
    "MATCHING_EMBEDDINGS": "on",
    "VECTORS_SYNC_LIMIT": "5",
    "VECTORS_POLL_SECONDS": "0.5",
    "LOG_LEVEL": "INFO",
}
# The demo bot's rows, for the checks made straight in the database.
BOT = "(SELECT id FROM bots_bot WHERE uuid = %s)"
OF_BOT = f"item_id IN (SELECT id FROM knowledge_knowledgeitem WHERE bot_id = {BOT})"
VECTORS_LINE = re.compile(r"Vectors of bot (\d+): (\d+) formulations, (\d+) computed")


@pytest.fixture
def database():
    """A fresh database on the machine's PostgreSQL (DATABASE_URL's server when it names one)."""
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        base = "postgres://postgres@127.0.0.1:5432/postgres"
    parts = urllib.parse.urlsplit(base)
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    name = f"background_{uuid.uuid4().hex[:8]}"
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as error:
        pytest.skip(f"no PostgreSQL at {admin}: {error}")
    yield urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Background:
    """One `manage.py run_background` process on the platform's database and Redis, logging to a file."""

    def __init__(self, platform: Platform, name: str, **env: str):
        self.env = {**platform.env, **env}
        self.log_path = Path(platform.folder) / f"background-{name}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> "Background":
        self.log = open(self.log_path, "wb")  # noqa: SIM115 (kept open while the process runs)
        self.process = subprocess.Popen(
            [PYTHON, "manage.py", "run_background"], cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
        )
        until(lambda: "Background work running as" in self.output(), "the background process starts", 60, self)
        return self

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int:
        """SIGTERM, as supervisord stops it; its exit status."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=40)
        finally:
            self.log.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.log.close()

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()


def until(condition, what: str, timeout: float, *logs):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    tails = "".join(f"\n--- {log.log_path.name} ---\n{log.output()[-3000:]}" for log in logs)
    raise AssertionError(f"{what}: not within {timeout} s{tails}")


def vectors(server, token: str) -> dict:
    return Browser(server).get_json(f"/servlet/api/bot/knowledgebase/status/{BOT_UUID}", token=token)["vectors"]


def test_with_background_work_separate_the_servers_leave_it_to_two_background_processes(tmp_path, database):
    with (
        Platform(
            tmp_path / "platform",
            processes=2,
            redis=True,
            grace_seconds=3,
            timer_seconds=0.5,
            database_url=database,
            extra_env=SEPARATE,
        ) as platform,
        ExitStack() as stack,
    ):
        a, b = platform.servers
        token = platform.admin_token()
        platform.add_operator("marc", "marc-pass-2026-x")
        console = Console(b, "marc", "marc-pass-2026-x", stack)
        console.send(action="status", status="available")
        console.until("operator")
        # The visitor's talk is answered by the lexical matcher: the demo bot's vectors, missing, are a job's
        # (its total is counted when a worker claims it).
        visitor = Visitor(a, stack)
        assert visitor.ask_for_human()["typeResponse"] == "DMLiveChatConnectionSucceed"
        job = vectors(a, token)
        assert job["state"] == "pending", job

        # The operator's process dies. No server runs the clocks or the jobs: nobody tells the visitor,
        # the job waits (the clocks run every 0.5 s, the console is gone after 3 s).
        b.kill()
        with pytest.raises(TimeoutError):
            visitor.frame(timeout=6)
        assert vectors(a, token) == job

        # Two background processes (two machines' worth) on the same database.
        one = Background(platform, "one").start()
        stack.callback(one.close)
        two = Background(platform, "two").start()
        stack.callback(two.close)
        notices = [visitor.frame(timeout=20), visitor.frame(timeout=20)]
        assert notices[0]["code"] == "OperatorDisconnected"
        assert (notices[1]["code"], notices[1]["queuePosition"]) == ("NAWaitingForOperator", 1)
        # Told once, though two processes' clocks run: one of them acted.
        with pytest.raises(TimeoutError):
            visitor.frame(timeout=4)
        assert (one.output() + two.output()).count("went offline: their console stopped answering") == 1

        done = until(
            lambda: (found := vectors(a, token))["state"] == "done" and found, "the job is done", 300, one, two
        )
        assert done["done"] == done["total"] > 5
        # Computed by one of them, once.
        lines = VECTORS_LINE.findall(one.output()) + VECTORS_LINE.findall(two.output())
        assert [(int(total), int(computed)) for _, total, computed in lines] == [(done["total"], done["total"])]
        with psycopg.connect(database) as connection:
            claimed_by = connection.execute(
                f"SELECT claimed_by FROM knowledge_vectors_vectorjob WHERE bot_id = {BOT}", [BOT_UUID]
            )
            claimed_by = claimed_by.fetchone()[0]
        assert claimed_by.rsplit(":", 1)[1] in {str(one.process.pid), str(two.process.pid)}

        # Server A, which computed nothing, puts the embeddings' matcher in place of its lexical one: it reads
        # the one a background process built and stored (knowledge/index_files.py), or builds it when it got
        # there first.
        until(
            lambda: re.search(
                r"Matching index of bot \d+ \(fr, version \d+, embeddings\)|Read stored index \S+/fr-embeddings",
                a.output(),
            ),
            "server A upgrades its matcher",
            60,
            a,
        )
        assert "Vectors of bot" not in a.output()
        # SIGTERM: each stops cleanly.
        assert one.stop() == 0 and two.stop() == 0
        for process in (one, two):
            assert "Background work stopped" in process.output()
            assert "Traceback" not in process.output(), process.output()[-3000:]
        assert "Traceback" not in a.output(), a.output()[-3000:]


def large_knowledge_base(items: int, per_item: int) -> bytes:
    """A French knowledge base of items × per_item formulations, every text distinct."""
    written = []
    for number in range(1, items + 1):
        texts = [
            f"Comment obtenir l'attestation numéro {number} pour le dossier {variant} de mon contrat ?"
            for variant in range(per_item)
        ]
        formulations = "".join(f'      <formulation language="fr">{text}</formulation>\n' for text in texts)
        written.append(
            f'    <knowledgeItem id="{number}" kind="question" status="published">\n{formulations}'
            f'      <answer language="fr" space="Defaut"><text>Attestation {number}.</text></answer>\n'
            "    </knowledgeItem>\n"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<knowledgeBase formatVersion="1">\n'
        '  <languages default="fr">\n    <language code="fr"/>\n  </languages>\n'
        '  <spaces>\n    <space name="Defaut" default="true"/>\n  </spaces>\n'
        f"  <knowledgeItems>\n{''.join(written)}  </knowledgeItems>\n</knowledgeBase>\n"
    ).encode()


def test_a_background_process_killed_in_the_middle_of_a_vector_job_leaves_it_to_the_next(tmp_path, database):
    # A claim without news for 8 s is taken over (60 s in production).
    env = {**SEPARATE, "VECTORS_LEASE_SECONDS": "8"}
    with (
        Platform(tmp_path / "platform", processes=1, redis=True, database_url=database, extra_env=env) as platform,
        ExitStack() as stack,
    ):
        (server,) = platform.servers
        token = platform.admin_token()
        status, body = Browser(server).request(
            "POST",
            f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}",
            large_knowledge_base(400, 10),
            {"Authorization": token, "Content-Type": "application/xml"},
        )
        assert status == 200, body[:500]
        total = 400 * 10
        assert vectors(server, token) == {"state": "pending", "done": 0, "total": total}
        # The importing server builds the bot's lexical index at once (its first talk finds it ready), though
        # the vectors are not its work.
        until(
            lambda: re.search(
                rf"Matching index of bot \d+ \(fr, version \d+, lexical\): {total} formulations", server.output()
            ),
            "the importing server builds the lexical index",
            60,
            server,
        )
        # ... and stores it once its classifier is final (a thread, after the line above): from then on a
        # background process reads it. Started before, the background process would build it for the machine
        # itself, as it is meant to.
        stored = Path(platform.folder) / "indexes" / BOT_UUID
        until(
            lambda: any(stored.glob("*/fr-lexical/graph")), "the importing server stores the lexical index", 60, server
        )

        first = Background(platform, "first").start()
        stack.callback(first.close)
        # Mid-job: at least one chunk (512) stored, more to come.
        running = until(
            lambda: (found := vectors(server, token))["state"] == "running" and 0 < found["done"] < total and found,
            "the first process is in the middle of the job",
            300,
            first,
        )
        first.kill()
        stored_before = running["done"]
        time.sleep(2)
        left = vectors(server, token)
        assert left["state"] == "running" and stored_before <= left["done"] < total, left
        with psycopg.connect(database) as connection:
            with_vectors = connection.execute(
                f"SELECT count(*) FROM knowledge_formulation WHERE vector IS NOT NULL AND {OF_BOT}", [BOT_UUID]
            ).fetchone()[0]
        assert 0 < with_vectors < total

        second = Background(platform, "second").start()
        stack.callback(second.close)
        done = until(lambda: (found := vectors(server, token))["state"] == "done" and found, "the job", 600, second)
        assert done == {"state": "done", "done": total, "total": total}
        with psycopg.connect(database) as connection:
            missing, count = connection.execute(
                f"SELECT count(*) FILTER (WHERE vector IS NULL), count(*) FROM knowledge_formulation WHERE {OF_BOT}",
                [BOT_UUID],
            ).fetchone()
        assert (missing, count) == (0, total)
        # The second process computed only what the first had not stored.
        ((_, counted, computed),) = VECTORS_LINE.findall(second.output())
        assert int(counted) == total and 0 < int(computed) == total - with_vectors
        assert "Vectors of bot" not in first.output()
        # A background process answers no talk: it builds no matching index of its own.
        assert "Matching index" not in first.output() + second.output()
        assert second.stop() == 0
        assert "Traceback" not in second.output(), second.output()[-3000:]


def test_a_job_scheduled_on_postgresql_starts_at_once_not_at_the_next_poll(tmp_path, database):
    """The import announces its job (NOTIFY); the background process, listening, claims it at once, though
    it looks for jobs only once a minute here."""
    with (
        Platform(tmp_path / "platform", processes=1, redis=True, database_url=database, extra_env=SEPARATE) as platform,
        ExitStack() as stack,
    ):
        (server,) = platform.servers
        token = platform.admin_token()
        background = Background(platform, "listening", VECTORS_POLL_SECONDS="60").start()
        stack.callback(background.close)
        time.sleep(1)  # its first look found nothing: the next is a minute away
        started = time.monotonic()
        status, body = Browser(server).request(
            "POST",
            f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}",
            large_knowledge_base(30, 10),
            {"Authorization": token, "Content-Type": "application/xml"},
        )
        assert status == 200, body[:500]
        # Claimed within seconds (the poll would have taken up to a minute).
        until(lambda: vectors(server, token)["state"] != "pending", "the job is claimed", 20, background)
        assert time.monotonic() - started < 20
        done = until(lambda: (found := vectors(server, token))["state"] == "done" and found, "the job", 300, background)
        assert done == {"state": "done", "done": 300, "total": 300}
        assert background.stop() == 0
        assert "Traceback" not in background.output(), background.output()[-3000:]
