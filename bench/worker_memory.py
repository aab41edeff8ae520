"""Memory of the production layout's gunicorn (deploy/gunicorn.conf.py, uvicorn workers) serving the demo
bot, with 2 and 8 workers: each worker's and the master's PSS (proportional set size, /proc/<pid>/smaps_rollup:
a page shared by n processes counts 1/n in each), in the same run for

- bare: bench/bare_django.py's one JSON view (no database, no models) under the same configuration: what a
  worker costs before the platform;
- no models: the platform with MATCHING_EMBEDDINGS=off (lexical matching only): its own code and data;
- per-worker: the platform with PROD_SHARED_MODELS=off, every worker loading every model itself (the layout
  before the models were shared);
- shared: the platform as deployed, the master loading the models its bots' languages need before it forks;
- shared, fr only: the same with the demo bot's English removed (no MiniLM anywhere).

    python bench/worker_memory.py [--workers 2 8] [--talks 6]

Every worker has answered talks before it is measured (talks are sent until each worker's CPU time has grown,
so that its matching index is built and the models have run in it). The database is a private PostgreSQL
(tests/servers.py); no Redis (not needed by talks).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.servers import BOT_UUID, Browser, Platform, PrivatePostgres, Server, first_talk_body, manage  # noqa: E402

QUESTIONS = ["Bonjour", "Quels sont vos horaires ?", "où se trouve votre agence ?", "merci beaucoup", "hello"]
BARE_APP = "bench.bare_django:application"


def pss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no Pss for {pid}")


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def talk(server: Server, text: str) -> None:
    status, body = Browser(server, timeout=300).request(
        "POST",
        f"/servlet/api/chat/talk/{BOT_UUID}",
        first_talk_body(text, "memory0bench000"),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    if status != 200 or "values" not in json.loads(body):
        raise RuntimeError(f"talk answered {status}: {body[:300]!r}")


def wait_started(server: Server, workers: int) -> None:
    """Until every worker has started serving (uvicorn's line, written after gunicorn's post_worker_init)."""
    deadline = time.monotonic() + 600
    while server.output().count("Application startup complete") < workers:
        if time.monotonic() > deadline or server.process.poll() is not None:
            raise RuntimeError(server.output()[-3000:])
        time.sleep(0.5)


def touch_every_worker(server: Server, workers: list[int], talks: int, ticks: int) -> int:
    """Concurrent talks until every worker's CPU time has grown by `ticks` (1/100 s) at least; the rounds sent."""
    before = {pid: cpu_ticks(pid) for pid in workers}
    with ThreadPoolExecutor(max_workers=2 * len(workers)) as pool:
        for rounds in range(1, 41):
            texts = [QUESTIONS[i % len(QUESTIONS)] for i in range(talks * len(workers))]
            list(pool.map(lambda text: talk(server, text), texts))
            if all(cpu_ticks(pid) - before[pid] >= ticks for pid in workers):
                return rounds
    raise RuntimeError("some worker never served a talk")


def measure(env: dict, folder: Path, name: str, workers: int, application: str, talks: int) -> dict:
    server = Server(
        {**env, "PROD_WORKERS": str(workers)}, folder / f"{name}-{workers}.log", "layout", application=application
    )
    server.stop_timeout = 60
    server.start()
    try:
        wait_started(server, workers)
        master, *children = server.process_ids()
        # A platform worker's first talk builds its matching index (0.5 s of CPU or more): 0.2 s shows it
        # served; a bare request costs about a millisecond.
        rounds = touch_every_worker(server, children, talks, 2 if application == BARE_APP else 20)
        master_pss, pss = pss_mb(master), sorted(pss_mb(pid) for pid in children)
        return {
            "name": name,
            "workers": workers,
            "rounds": rounds,
            "master": master_pss,
            "median": statistics.median(pss),
            "max": pss[-1],
            "total": master_pss + sum(pss),
            "minilm": any("onnxruntime" in Path(f"/proc/{p}/maps").read_text() for p in [master, *children]),
        }
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 8], help="worker counts (PROD_WORKERS)")
    parser.add_argument("--talks", type=int, default=4, help="talks per worker in each round")
    args = parser.parse_args()
    if not PrivatePostgres.available():
        sys.exit("initdb/pg_ctl are not installed")
    folder = Path(tempfile.mkdtemp(prefix="bench-worker-memory-"))
    print(f"cores: {os.cpu_count()}, load: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with (
        PrivatePostgres(durable=True) as postgres,
        Platform(
            folder,
            processes=0,
            database_url=postgres.create_database("memory"),
            extra_env={"MATCHING_EMBEDDINGS": "on", "LOG_LEVEL": "WARNING", "GUNICORN_LOG_LEVEL": "info"},
        ) as platform,
    ):
        env = platform.env
        rows = []
        for workers in args.workers:
            rows.append(measure(env, folder, "bare", workers, BARE_APP, args.talks))
            no_models = {**env, "MATCHING_EMBEDDINGS": "off"}
            rows.append(measure(no_models, folder, "no models", workers, "config.asgi:application", args.talks))
            per_worker = {**env, "PROD_SHARED_MODELS": "off"}
            rows.append(measure(per_worker, folder, "per-worker", workers, "config.asgi:application", args.talks))
            rows.append(measure(env, folder, "shared", workers, "config.asgi:application", args.talks))
        drop_english = "from bots.models import BotLanguage; BotLanguage.objects.filter(code='en').delete()"
        manage(env, "shell", "-c", drop_english)
        for workers in args.workers:
            rows.append(measure(env, folder, "shared, fr only", workers, "config.asgi:application", args.talks))
    print(f"load after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    bare = {row["workers"]: row["median"] for row in rows if row["name"] == "bare"}
    plain = {row["workers"]: row["median"] for row in rows if row["name"] == "no models"}
    print(
        f"\n{'layout':<16} {'workers':>7} {'master':>8} {'worker median':>14} {'worker max':>11} "
        f"{'above bare':>11} {'above no models':>16} {'total':>8} {'MiniLM':>7}  (PSS, MB)"
    )
    for row in rows:
        above = row["median"] - bare[row["workers"]]
        above_plain = row["median"] - plain[row["workers"]]
        print(
            f"{row['name']:<16} {row['workers']:>7} {row['master']:>8.0f} {row['median']:>14.0f} {row['max']:>11.0f} "
            f"{above:>+11.0f} {above_plain:>+16.0f} {row['total']:>8.0f} {'yes' if row['minilm'] else 'no':>7}"
        )


if __name__ == "__main__":
    main()
