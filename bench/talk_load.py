"""Load benchmark of the production layout (deploy/prod.py: nginx with TLS, gunicorn's uvicorn workers,
PostgreSQL, Redis): concurrent visitors talking to the demo bot over https, beside a bare Django JSON
view served the same way, then the same load with PostgreSQL stopped and restarted in the middle.

    python bench/talk_load.py [--visitors 20] [--dialogs 10] [--turns 5] [--workers 2]

- talk: `visitors` clients at once, each over its own keep-alive https connection, each holding
  `dialogs` dialogs in turn of `turns` questions (some the demo bot knows, some it does not), on
  chat/talk through nginx;
- bare: the same clients and requests against bench/bare_django.py (one view reading the form and
  answering JSON, no database) under the same gunicorn configuration, worker count and nginx;
- fault: the talk load for `--fault-run` seconds; PostgreSQL is stopped (pg_ctl stop -m fast: the
  connections drop) at `--fault-at` and started again `--fault-for` seconds later. Prints the statuses
  clients got, second by second, and what a refusal looked like.

Printed for each: requests/s, p50 / p95 / p99 latency, errors. Afterwards, every talk that answered 200
must have its interaction stored, in the order the visitor asked (checked in the database); talks that
did not answer 200 and were stored anyway are counted too. The database and Redis are private ones
(tests/servers.py: initdb on a free port with fsync off, a Redis keeping nothing on disk), so that the
fault never touches the machine's services; the load client runs on the same machine as the layout.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import platform
import random
import ssl
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as `python bench/talk_load.py` from anywhere
    sys.path.insert(0, str(REPO))

from bench._common import percentile  # noqa: E402
from bench.sites import GunicornSite  # noqa: E402
from deploy.scratch import ScratchLayout  # noqa: E402
from tests.servers import BOT_UUID, PrivatePostgres, PrivateRedis  # noqa: E402

TALK = f"/servlet/api/chat/talk/{BOT_UUID}"
# Questions the demo bot knows, words it rewords, and questions it does not know.
KNOWN = [
    ("fr", "Quels sont vos horaires d'ouverture ?"),
    ("fr", "j'ai perdu ma carte"),
    ("fr", "comment faire un virement"),
    ("fr", "Combien coûte le compte ?"),
    ("en", "What are your opening hours?"),
    ("en", "I forgot my password"),
    ("fr", "carte"),
]
UNKNOWN = [
    ("fr", "xyzzy plugh"),
    ("fr", "quelle est la couleur du ciel sur Mars"),
    ("en", "can you recommend a good pizza place"),
]

# A visitor whose talk failed asks again after this pause (not at once, as a script hammering would).
RETRY_PAUSE_SECONDS = 1.0


@dataclass
class Outcome:
    started: float
    ended: float
    status: int | str  # an HTTP status, or the name of a connection error
    body: bytes = b""
    retry_after: str | None = None


@dataclass
class Phase:
    name: str
    outcomes: list[Outcome] = field(default_factory=list)
    # (context, question) of every talk that answered 200, in each visitor's order.
    answered: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    asked: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    started: float = 0.0
    ended: float = 0.0
    cpu: list[float] = field(default_factory=list)  # CPU seconds of the app workers, of nginx's workers
    lock: threading.Lock = field(default_factory=threading.Lock)


def decoded(value: str) -> str:
    return base64.b64decode(value).decode()


class Visitor:
    """One visitor's browser: a keep-alive https connection, dialogs of several turns."""

    def __init__(self, port: int, context: ssl.SSLContext, seed: int):
        self.port = port
        self.ssl = context
        self.random = random.Random(seed)
        self.connection = None
        self.client_id = f"{seed:015x}"[-15:]

    def post(self, path: str, fields: dict) -> Outcome:
        body = urllib.parse.urlencode(fields).encode()
        return self.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None) -> Outcome:
        started = time.perf_counter()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=60, context=self.ssl)
            self.connection.request(method, path, body=body, headers=headers or {})
            response = self.connection.getresponse()
            content = response.read()
            outcome = Outcome(started, time.perf_counter(), response.status, content, response.getheader("Retry-After"))
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return outcome
        except (OSError, http.client.HTTPException) as error:
            self.close()
            return Outcome(started, time.perf_counter(), type(error).__name__)

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def question(self) -> tuple[str, str]:
        return self.random.choice(UNKNOWN) if self.random.random() < 0.25 else self.random.choice(KNOWN)

    def hold_dialog(self, phase: Phase, turns: int, stop: float | None) -> None:
        context = ""
        for _ in range(turns):
            if stop is not None and time.perf_counter() >= stop:
                return
            language, text = self.question()
            fields = {"userInput": text, "language": language, "space": "Defaut", "clientId": self.client_id}
            fields["solutionUsed"] = "ASSISTANT"
            outcome = self.post(TALK + (f"/{context}" if context else ""), fields)
            with phase.lock:
                phase.outcomes.append(outcome)
            if outcome.status != 200:
                # The visitor asks again a moment later; without a dialog yet, the next talk starts one.
                time.sleep(RETRY_PAUSE_SECONDS)
                continue
            values = json.loads(outcome.body).get("values", {})
            if "contextId" in values:  # the bare view answers no dialog
                context = decoded(values["contextId"])
                with phase.lock:
                    phase.answered[context].append(text)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes have used (/proc/<pid>/stat), in seconds."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def run_phase(
    name: str, port: int, context: ssl.SSLContext, args, *, servers=None, duration: float | None = None, during=None
):
    """`args.visitors` visitors at once; each holds `args.dialogs` dialogs (or dialogs until `duration`).
    servers: (app workers, nginx workers) whose CPU time the phase measures (pids read at its start)."""
    phase = Phase(name)
    measured = [pids() for pids in servers] if servers else []
    cpu_before = [cpu_seconds(pids) for pids in measured]
    phase.started = time.perf_counter()
    stop = phase.started + duration if duration else None

    def visit(index: int):
        visitor = Visitor(port, context, seed=index * 7919 + len(name))
        try:
            count = 0
            while (stop is None and count < args.dialogs) or (stop is not None and time.perf_counter() < stop):
                visitor.hold_dialog(phase, args.turns, stop)
                count += 1
        finally:
            visitor.close()

    threads = [threading.Thread(target=visit, args=(index,), daemon=True) for index in range(args.visitors)]
    for thread in threads:
        thread.start()
    if during is not None:
        during(phase.started)
    for thread in threads:
        thread.join()
    phase.ended = time.perf_counter()
    phase.cpu = [cpu_seconds(pids) - before for pids, before in zip(measured, cpu_before, strict=True)]
    return phase


def summary(phase: Phase) -> dict:
    latencies = [(o.ended - o.started) * 1000 for o in phase.outcomes]
    statuses = Counter(o.status for o in phase.outcomes)
    seconds = phase.ended - phase.started
    return {
        "requests": len(phase.outcomes),
        "seconds": seconds,
        "rps": len(phase.outcomes) / seconds if seconds else 0.0,
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "p99": percentile(latencies, 99),
        "errors": sum(count for status, count in statuses.items() if status != 200),
        "statuses": dict(statuses),
        "app_cpu_ms": 1000 * phase.cpu[0] / len(phase.outcomes) if phase.cpu and phase.outcomes else float("nan"),
        "nginx_cpu_ms": 1000 * phase.cpu[1] / len(phase.outcomes) if phase.cpu and phase.outcomes else float("nan"),
    }


def print_summaries(rows: list[tuple[str, dict]]) -> None:
    print(
        f"\n{'':<24}{'requests':>9}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'errors':>8}"
        f"{'app CPU ms/req':>16}{'nginx CPU ms/req':>18}"
    )
    for label, s in rows:
        print(
            f"{label:<24}{s['requests']:>9}{s['rps']:>9.1f}{s['p50']:>9.1f}{s['p95']:>9.1f}{s['p99']:>9.1f}"
            f"{s['errors']:>8}{s['app_cpu_ms']:>16.2f}{s['nginx_cpu_ms']:>18.2f}"
        )


def stored_interactions(database_url: str) -> dict[str, list[str]]:
    import psycopg

    with psycopg.connect(database_url) as connection:
        rows = connection.execute(
            "SELECT d.uuid::text, i.user_input FROM dialogs_interaction i "
            "JOIN dialogs_dialog d ON d.id = i.dialog_id ORDER BY i.id"
        ).fetchall()
    stored = defaultdict(list)
    for context, text in rows:
        stored[context].append(text)
    return stored


def check_stored(phases: list[Phase], database_url: str) -> dict:
    """Every 200 talk stored, in order; anything stored beyond them counted."""
    stored = stored_interactions(database_url)
    answered = sum(len(texts) for phase in phases for texts in phase.answered.values())
    missing = reordered = 0
    expected_contexts = {}
    for phase in phases:
        expected_contexts.update(phase.answered)
    for context, texts in expected_contexts.items():
        have = stored.get(context, [])
        lost = sum((Counter(texts) - Counter(have)).values())
        missing += lost
        if not lost and not in_order(texts, have):
            reordered += 1
    extra = sum(len(texts) for texts in stored.values()) - answered
    return {"answered": answered, "missing": missing, "reordered": reordered, "extra": extra}


def in_order(wanted: list[str], stored: list[str]) -> bool:
    """`wanted` appears in `stored` in its order (other stored talks may come between)."""
    remaining = iter(stored)
    return all(any(text == have for have in remaining) for text in wanted)


class BareSite(GunicornSite):
    """bench/bare_django.py under gunicorn with the layout's configuration, and an nginx of its own in front
    (deploy/prod.py, proxy role: the same template, certificate and settings)."""

    def __init__(self, workers: int):
        super().__init__("bench.bare_django:application", workers)


def warm_up(port: int, context: ssl.SSLContext, rounds: int = 12) -> Phase:
    """Every worker loads its models and builds its index before the clock starts (one-turn dialogs,
    stored like the others)."""
    phase = Phase("warm-up")

    def one(index):
        visitor = Visitor(port, context, seed=10_000 + index)
        for language, text in KNOWN + UNKNOWN:
            outcome = visitor.post(TALK, {"userInput": text, "language": language, "space": "Defaut"})
            values = json.loads(outcome.body).get("values", {}) if outcome.status == 200 else {}
            if "contextId" in values:
                with phase.lock:
                    phase.answered[decoded(values["contextId"])].append(text)
        visitor.close()

    threads = [threading.Thread(target=one, args=(index,)) for index in range(rounds)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return phase


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=20, help="clients at once")
    parser.add_argument("--dialogs", type=int, default=10, help="dialogs each visitor holds in turn")
    parser.add_argument("--turns", type=int, default=5, help="questions per dialog")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (PROD_WORKERS)")
    parser.add_argument("--fault-run", type=float, default=24.0, help="seconds of load in the fault phase")
    parser.add_argument("--fault-at", type=float, default=6.0, help="second at which PostgreSQL stops")
    parser.add_argument("--fault-for", type=float, default=6.0, help="seconds PostgreSQL stays down")
    parser.add_argument(
        "--no-durability",
        action="store_true",
        help="PostgreSQL with fsync off (figures labelled NOT DURABLE); by default its default durability",
    )
    parser.add_argument("--embeddings", choices=["on", "off"], default="on", help="MATCHING_EMBEDDINGS")
    args = parser.parse_args()

    if not PrivatePostgres.available():
        sys.exit("talk_load: initdb/pg_ctl are needed for the private PostgreSQL (apt-get install postgresql)")
    print(
        f"talk_load: {args.visitors} visitors at once, {args.dialogs} dialogs of {args.turns} turns each, "
        f"{args.workers} workers; {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
        "client on the same machine"
    )
    folder = Path(tempfile.mkdtemp(prefix="talk-load-"))
    print("PostgreSQL durability: " + ("OFF (fsync off) - NOT DURABLE" if args.no_durability else "default (fsync on)"))
    with PrivatePostgres(durable=not args.no_durability) as postgres:
        redis = PrivateRedis(folder).start()
        database_url = postgres.create_database("talkload")
        layout = bare = None
        try:
            environment = {"MATCHING_EMBEDDINGS": "1" if args.embeddings == "on" else "0", "LOG_LEVEL": "WARNING"}
            layout = ScratchLayout(database_url, redis.url, workers=args.workers, env=environment).start()
            bare = BareSite(args.workers)
            talk_tls = layout.ssl_context()
            bare_tls = bare.proxy.ssl_context()
            warmed = warm_up(layout.https_port, talk_tls)
            warm_up(bare.proxy.https_port, bare_tls, rounds=2)

            talk_servers = (layout.worker_pids, layout.nginx_worker_pids)
            bare_servers = (bare.worker_pids, bare.proxy.nginx_worker_pids)
            talk = run_phase("talk", layout.https_port, talk_tls, args, servers=talk_servers)
            bare_phase = run_phase("bare", bare.proxy.https_port, bare_tls, args, servers=bare_servers)
            print_summaries([("talk (demo bot)", summary(talk)), ("bare Django JSON view", summary(bare_phase))])

            events, monitored = [], []

            def monitor(started: float, until: float):
                """The server status, as monitoring sees it, once a second."""
                watcher = Visitor(layout.https_port, talk_tls, seed=1)
                while time.perf_counter() < until:
                    outcome = watcher.request("GET", "/servlet/api/serverstatus")
                    monitored.append((outcome.ended - started, outcome.status, outcome.body))
                    time.sleep(max(0.0, 1.0 - (outcome.ended - outcome.started)))
                watcher.close()

            def fault(started: float):
                threading.Thread(target=monitor, args=(started, started + args.fault_run), daemon=True).start()
                time.sleep(max(0.0, started + args.fault_at - time.perf_counter()))
                events.append(("PostgreSQL stopped", time.perf_counter() - started))
                postgres.stop("fast")
                time.sleep(max(0.0, started + args.fault_at + args.fault_for - time.perf_counter()))
                postgres.start()
                events.append(("PostgreSQL started", time.perf_counter() - started))

            faulted = run_phase(
                "fault", layout.https_port, talk_tls, args, servers=talk_servers, duration=args.fault_run, during=fault
            )
            print_fault(faulted, events, monitored)
            print_summaries([("talk, PostgreSQL down", summary(faulted))])

            stored = check_stored([warmed, talk, faulted], database_url)
            print(
                f"\nstored: {stored['answered']} talks answered 200 (warm-up included), "
                f"{stored['missing']} of them not stored, "
                f"{stored['reordered']} dialogs stored out of order, {stored['extra']} stored without a 200"
            )
            if stored["missing"] or stored["reordered"]:
                sys.exit(1)
        finally:
            if bare is not None:
                bare.stop()
            if layout is not None:
                layout.stop()
            redis.stop()


def print_fault(phase: Phase, events: list[tuple[str, float]], monitored: list) -> None:
    print(f"\nfault: {', '.join(f'{what} at {second:.1f} s' for what, second in events)}")
    print("statuses clients got, by second of the answer:")
    by_second = defaultdict(Counter)
    for outcome in phase.outcomes:
        by_second[int(outcome.ended - phase.started)][outcome.status] += 1
    for second in sorted(by_second):
        counts = "  ".join(f"{status} x {count}" for status, count in sorted(by_second[second].items(), key=str))
        print(f"  {second:>3} s  {counts}")
    restarted = next((second for what, second in events if what == "PostgreSQL started"), None)
    if restarted is not None:
        back = [
            o.ended - phase.started for o in phase.outcomes if o.status == 200 and o.ended - phase.started > restarted
        ]
        if back:
            print(f"  first 200 after the restart: {min(back) - restarted:.2f} s after PostgreSQL was started")
    print("the server status (GET /servlet/api/serverstatus, once a second), as it changed:")
    last = None
    for second, status, body in monitored:
        try:
            shown = {k: v for k, v in json.loads(body).items() if k not in ("date", "version")}
        except ValueError:
            shown = body[:200].decode(errors="replace")
        if (status, shown) != last:
            print(f"  {second:>5.1f} s  {status} {json.dumps(shown, ensure_ascii=False)[:400]}")
            last = (status, shown)
    seen = set()
    for outcome in phase.outcomes:
        if outcome.status != 200 and outcome.status not in seen:
            seen.add(outcome.status)
            retry = f" (Retry-After: {outcome.retry_after})" if outcome.retry_after else ""
            print(f"  a {outcome.status}{retry}: {outcome.body[:300].decode(errors='replace')}")


if __name__ == "__main__":
    main()
