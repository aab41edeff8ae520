"""Benchmark of the Dialogs group's export: 1,000,000 interactions of one bot in a scratch PostgreSQL
database, exported through the real servlet over real HTTP (GET /servlet/api/dialogs/export/{bot} on a
daphne process serving config.asgi, as `make run` does), in JSON lines and in CSV.

Printed per format: rows received, wall time of the download (first byte asked to last byte read), the
CPU time the server process spent on it (utime + stime from /proc: steadier than wall time on a shared
machine; PostgreSQL's own CPU is not in it), and
the memory of the process that exports, i.e. the daphne server, read from its /proc/<pid>/status:
VmRSS after a warm-up export (the baseline) and VmHWM (its peak) after the full export. Each format
gets a fresh server, so each peak is that format's own. Target (issue 13): <= 60 s and <= 300 MB.

Seeding (not timed against the target): dialogs and interactions are written with COPY, 10
interactions per dialog by default (fr/en, spaces Defaut/Pro, some test dialogs, feedback, operators).

Usage (from the repository root; the database in --postgres-url is dropped and created again):
    .venv/bin/python bench/dialogs_export.py [--postgres-url postgres://postgres@127.0.0.1:5432/dialogsbench]
        [--interactions 1000000] [--per-dialog 10] [--formats jsonl csv]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.kb_import import fresh_postgres  # noqa: E402
from bench.livechat import Server, cpu_seconds  # noqa: E402

TARGET = {"seconds": 60.0, "peak_mb": 300.0}
DIALOG_COLUMNS = [
    "id",
    "uuid",
    "bot_id",
    "client_id",
    "language",
    "space",
    "variables",
    "browser",
    "os",
    "user_url",
    "context_type",
    "solution_used",
    "already_came",
    "qualification_mode",
    "first_activity",
    "last_activity",
    "misunderstood_streak",
    "livechat",
    "user_typing",
    "typing_content",
]
INTERACTION_COLUMNS = [
    "dialog_id",
    "bot_id",
    "counted",
    "created_at",
    "user_input",
    "answer",
    "type_response",
    "reworded_items",
    "language",
    "space",
    "origin",
    "ask_feedback",
    "feedback",
    "feedback_comment",
    "human",
    "payload",
]
QUESTIONS = [
    "Quels sont vos horaires d'ouverture ?",
    "J'ai perdu ma carte bancaire, que dois-je faire ?",
    "Combien coûte le compte professionnel ?",
    "How do I open an account?",
    "Je veux parler à un conseiller",
    "oui",
]
ANSWER = "<p>Nos agences sont ouvertes du lundi au vendredi de 9 h à 18 h, et le samedi matin. " * 2 + "</p>"


def seed(args) -> dict:
    """Inside its own process: migrate, make the bot and an administrator's token, COPY the rows."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import uuid

    from django.core.management import call_command
    from django.db import connection

    from accounts.models import Account, ApiToken, Role
    from bots.models import Bot
    from tests.accounts.personas import make_persona

    call_command("migrate", verbosity=0)
    account = Account.objects.create(name="Benchmark")
    bot = Bot.objects.create(name="Benchmark bot", default_language="fr", account=account)
    user, _ = make_persona(account, Role.ADMINISTRATOR, login="bench-admin")
    _, token = ApiToken.issue(user)

    dialogs = args.interactions // args.per_dialog
    start = datetime(2025, 1, 1, tzinfo=UTC)
    started = time.perf_counter()
    connection.ensure_connection()
    raw = connection.connection
    with raw.cursor() as cursor:
        with cursor.copy(f"COPY dialogs_dialog ({', '.join(DIALOG_COLUMNS)}) FROM STDIN") as copy:
            for n in range(1, dialogs + 1):
                first = start + timedelta(seconds=n * 250)
                copy.write_row(
                    (n, uuid.UUID(int=n, version=4), bot.pk, f"client{n % 5000}", "fr" if n % 10 < 7 else "en",
                     "Pro" if n % 4 == 0 else "Defaut", "{}", "Firefox 140", "Linux", "https://www.example.com/aide",
                     "", "", False, n % 20 == 0, first, first + timedelta(minutes=args.per_dialog), 0, "", False, "")
                )  # fmt: skip
        cursor.execute("SELECT setval(pg_get_serial_sequence('dialogs_dialog', 'id'), %s)", [dialogs])
        with cursor.copy(f"COPY dialogs_interaction ({', '.join(INTERACTION_COLUMNS)}) FROM STDIN") as copy:
            for n in range(1, dialogs + 1):
                first = start + timedelta(seconds=n * 250)
                operator = n % 33 == 0
                language, space = ("fr" if n % 10 < 7 else "en"), ("Pro" if n % 4 == 0 else "Defaut")
                for i in range(args.per_dialog):
                    last = i == args.per_dialog - 1
                    human = operator and i >= args.per_dialog // 2
                    copy.write_row(
                        (n, bot.pk, n % 20 != 0, first + timedelta(minutes=i), QUESTIONS[(n + i) % len(QUESTIONS)],
                         ANSWER, "OPRegularOperatorAnswer" if human else "DMUnderstoodQuestion", "[]", language, space,
                         "", last, ("positive" if n % 3 else "negative") if last and n % 10 == 0 else "", "", human,
                         "{}")
                    )  # fmt: skip
    if not raw.autocommit:
        raw.commit()
    cursor = connection.cursor()
    cursor.execute("ANALYZE dialogs_dialog")
    cursor.execute("ANALYZE dialogs_interaction")
    return {
        "bot": str(bot.uuid),
        "token": token,
        "dialogs": dialogs,
        "interactions": dialogs * args.per_dialog,
        "seconds": time.perf_counter() - started,
    }


def memory_mb(pid: int) -> dict:
    """VmRSS (now) and VmHWM (the peak so far) of a process, in MiB."""
    figures = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                figures[name] = int(value.split()[0]) / 1024
    return figures


def download(port: int, path: str, token: str) -> tuple[int, int, float]:
    """GET path over HTTP, reading the body as it comes; (lines, bytes, seconds)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    started = time.perf_counter()
    connection.request("GET", path, headers={"Authorization": token})
    response = connection.getresponse()
    if response.status != 200:
        sys.exit(f"GET {path}: {response.status} {response.read()[:500]!r}")
    lines = size = 0
    while chunk := response.read(256 * 1024):
        lines += chunk.count(b"\n")
        size += len(chunk)
    seconds = time.perf_counter() - started
    connection.close()
    return lines, size, seconds


def export(env: dict, seeded: dict, encoding: str, workdir: Path) -> dict:
    server = Server("config.asgi:application", env, workdir / f"daphne-{encoding}.log").start()
    try:
        path = f"/servlet/api/dialogs/export/{seeded['bot']}?format={encoding}"
        # Warm-up: the same code path on the first day only (about 350 dialogs), so that the baseline
        # holds the loaded code, the database connection and Django's caches.
        download(server.port, path + "&to=2025-01-01", seeded["token"])
        before, cpu_before = memory_mb(server.pid), cpu_seconds(server.pid)
        lines, size, seconds = download(server.port, path, seeded["token"])
        after, cpu = memory_mb(server.pid), cpu_seconds(server.pid) - cpu_before
    finally:
        server.stop()
    rows = lines - (1 if encoding == "csv" else 0)  # the CSV header line (the bench's texts hold no newline)
    return {
        "format": encoding,
        "rows": rows,
        "mb": size / 2**20,
        "seconds": seconds,
        "rows_per_second": rows / seconds,
        "server_cpu_seconds": cpu,
        "baseline_mb": before["VmRSS"],
        "peak_mb": after["VmHWM"],
        "growth_mb": after["VmHWM"] - before["VmRSS"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432/dialogsbench")
    parser.add_argument("--interactions", type=int, default=1_000_000)
    parser.add_argument("--per-dialog", type=int, default=10)
    parser.add_argument("--formats", nargs="+", default=["jsonl", "csv"], choices=["jsonl", "csv"])
    parser.add_argument("--json", action="store_true", help="Print all figures as JSON at the end.")
    args = parser.parse_args()
    if args.seed:
        print(json.dumps(seed(args)))
        return

    workdir = Path(tempfile.mkdtemp(prefix="dialogs-bench-"))
    env = dict(
        os.environ,
        DATABASE_URL=fresh_postgres(args.postgres_url),
        DATA_DIR=str(workdir),
        MATCHING_EMBEDDINGS="off",
        LIVECHAT_TIMER_SECONDS="0",
        LOG_LEVEL="WARNING",
    )
    env.pop("REDIS_URL", None)
    command = [sys.executable, __file__, "--seed", "--interactions", str(args.interactions)]
    done = subprocess.run(
        [*command, "--per-dialog", str(args.per_dialog)], env=env, cwd=REPO, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"seeding failed:\n{done.stdout}\n{done.stderr}")
    seeded = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"seeded {seeded['dialogs']:,} dialogs, {seeded['interactions']:,} interactions (COPY) in "
        f"{seeded['seconds']:.1f} s"
    )
    results = [export(env, seeded, encoding, workdir) for encoding in args.formats]
    print(
        f"{'format':<7} {'rows':>10} {'MB':>7} {'seconds':>8} {'rows/s':>9} {'server CPU':>11} {'RSS before':>11} "
        f"{'peak RSS':>9}"
    )
    for r in results:
        print(
            f"{r['format']:<7} {r['rows']:>10,} {r['mb']:>7.0f} {r['seconds']:>8.1f} {r['rows_per_second']:>9,.0f} "
            f"{r['server_cpu_seconds']:>9.1f} s "
            f"{r['baseline_mb']:>8.0f} MB {r['peak_mb']:>6.0f} MB"
        )
    within = all(
        r["rows"] == seeded["interactions"] and r["seconds"] <= TARGET["seconds"] and r["peak_mb"] <= TARGET["peak_mb"]
        for r in results
    )
    print(
        f"target: every row, <= {TARGET['seconds']:.0f} s and <= {TARGET['peak_mb']:.0f} MB peak for the exporting "
        f"process: {'within' if within else 'OVER'}"
    )
    if args.json:
        print(json.dumps({"seeded": seeded, "exports": results}, indent=2))


if __name__ == "__main__":
    main()
