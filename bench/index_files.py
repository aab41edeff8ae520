"""Benchmark of stored indexes (knowledge/index_files.py): the first talk of a fresh process on a big bot, with
its snapshot and matching index built in the process (the baseline, MATCHING_INDEX_DIR empty) and read from
what another process stored, on SQLite and PostgreSQL.

The bot is bench/kb_import.py's generated one (100,000 items, 500,000 formulations in French and English),
imported through `import_kb`. Every measure runs in a fresh process: Django set up, then a visitor's first
talk through the whole Django stack (django.test.Client on the chatbox's talk servlet: middleware, the talk
pipeline, the interaction written), then five more. Each process reports the first talk's time, the next
talks' median, its peak memory (ru_maxrss) and its memory once the talks are answered (VmRSS). The store is
made once per knowledge version by one process (`snapshot.warm`, as the background worker does after an
import); its time is reported too.

Usage (from the repository root):
    .venv/bin/python bench/index_files.py [--items 100000] [--databases sqlite postgres] [--runs 3]
        [--embeddings off] [--postgres-url postgres://postgres@127.0.0.1:5432/indexbench] [--workdir /tmp/index-bench]

The PostgreSQL database named in --postgres-url is dropped and created again (a default, durable server).
Figures: bench/INDEX_FILES.md.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.kb_import import fresh_postgres, phase  # noqa: E402


def rss_now_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run_inside(args) -> dict:
    """Inside a fresh process: store the bot's indexes (`store`), or answer talks (`talk`)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.test import Client

    from bots.models import Bot
    from knowledge import snapshot
    from knowledge.matching import embeddings
    from tests.servers import first_talk_body

    bot = Bot.objects.get(uuid=args.bot)
    result: dict = {}
    if args.inside == "vectors":
        result["written"] = synthetic_vectors(bot)
        return result
    if settings.MATCHING_EMBEDDINGS:
        embeddings.load_models(bot.languages.values_list("code", flat=True))  # as a server worker does at start
    if args.inside == "store":
        started = time.perf_counter()
        snapshot.warm(bot.pk)
        found = snapshot.snapshot_for(bot)
        for matcher in found._matchers.values():
            matcher.wait_ready()
        for thread in threading.enumerate():  # a matcher final after its build is stored by a thread
            if thread.name == "matcher-store":
                thread.join()
        result["seconds"] = time.perf_counter() - started
        result["steady_mb"] = rss_now_mb()
    else:
        client = Client(HTTP_HOST="127.0.0.1")
        times = []
        for number in range(6):
            started = time.perf_counter()
            response = client.post(
                f"/servlet/api/chat/talk/{bot.uuid}",
                first_talk_body(args.question, f"indexbench{number:05d}"),
                content_type="application/x-www-form-urlencoded",
            )
            times.append(time.perf_counter() - started)
            if response.status_code != 200:
                raise RuntimeError(f"talk answered {response.status_code}: {response.content[:300]!r}")
            if number == 0:
                kind = str((response.json().get("values") or {}).get("typeResponse", ""))
                with contextlib.suppress(ValueError):  # the chatbox's fields are base64 unless asked otherwise
                    kind = base64.b64decode(kind, validate=True).decode()
                result["outcome"] = kind
        result["first"] = times[0]
        result["next_median"] = statistics.median(times[1:])
        result["steady_mb"] = rss_now_mb()
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def synthetic_vectors(bot) -> int:
    """Random unit vectors, tagged as the models' own, for every formulation without one: building and reading
    an embeddings index costs the same whatever the numbers (computing 500,000 real vectors takes hours here);
    the answers' scores mean nothing then, and the benchmark reads only times and memory."""
    from knowledge.matching import embeddings
    from knowledge.models import Formulation

    random = np.random.default_rng(7)
    written = 0
    for language in bot.languages.values_list("code", flat=True):
        width = embeddings.USE_DIM + (embeddings.MINILM_DIM if embeddings.uses_minilm(language) else 0)
        ids = list(
            Formulation.objects.filter(item__bot=bot, language=language, vector__isnull=True).values_list(
                "id", flat=True
            )
        )
        for start in range(0, len(ids), 20_000):
            chunk = ids[start : start + 20_000]
            vectors = random.standard_normal((len(chunk), width), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            rows = [Formulation(id=fid, vector=embeddings.to_bytes(v)) for fid, v in zip(chunk, vectors, strict=True)]
            Formulation.objects.bulk_update(rows, ["vector"], batch_size=2000)
            written += len(rows)
    return written


def inside(kind: str, env: dict, bot: str, question: str = "") -> dict:
    command = [sys.executable, __file__, "--inside", kind, "--bot", bot, "--question", question]
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{kind} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def a_question(env: dict) -> str:
    """A French formulation of the generated bot, typed as a visitor would (lower case, no question mark)."""
    code = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings'); django.setup();"
        "from knowledge.models import Formulation;"
        "print(Formulation.objects.filter(language='fr').order_by('id').values_list('text', flat=True)[7])"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1].lower().rstrip(" ?")


def bench(database: str, url: str, file: Path, workdir: Path, args) -> dict:
    store = workdir / f"indexes-{database}"
    shutil.rmtree(store, ignore_errors=True)
    env = dict(os.environ, DATABASE_URL=url, MATCHING_EMBEDDINGS=args.embeddings, LOG_LEVEL="WARNING")
    env.update(DATA_DIR=str(workdir / f"data-{database}"), VECTORS_WORKER="false", BACKGROUND_WORK="separate")
    env.pop("REDIS_URL", None)
    bot = phase("setup", env)["bot"]
    imported = phase("import", env, bot=bot, file=file)
    if args.embeddings == "on":
        results_vectors = inside("vectors", env, bot)["written"]
        print(f"{database}: {results_vectors} synthetic vectors written")
    question = a_question(env)
    built_env = dict(env, MATCHING_INDEX_DIR="")
    stored_env = dict(env, MATCHING_INDEX_DIR=str(store))
    results = {"import_seconds": imported["seconds"], "question": question, "built": [], "stored": []}
    for run in range(args.runs):
        results["built"].append(inside("talk", built_env, bot, question))
        if run == 0:
            results["store"] = inside("store", stored_env, bot)
            results["store_mb"] = sum(f.stat().st_size for f in store.rglob("*") if f.is_file()) / 2**20
        results["stored"].append(inside("talk", stored_env, bot, question))
    return results


def median_of(rows: list[dict], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def report(database: str, r: dict) -> None:
    print(
        f"\n== {database}: question {r['question']!r}; store written once in {r['store']['seconds']:.1f} s "
        f"({r['store_mb']:.0f} MB on disk; that process: peak {r['store']['peak_mb']:.0f} MB, "
        f"{r['store']['steady_mb']:.0f} MB once stored)"
    )
    print(
        f"{'fresh process':<28}{'first talk':>12}{'next (median)':>15}"
        f"{'peak MB':>9}{'steady MB':>11}{'peak/steady':>13}"
    )
    for name, label in (("built", "builds (baseline)"), ("stored", "reads the stored index")):
        rows = r[name]
        first, after = median_of(rows, "first"), median_of(rows, "next_median")
        peak, steady = median_of(rows, "peak_mb"), median_of(rows, "steady_mb")
        print(f"{label:<28}{first:>11.2f}s{after * 1000:>13.0f}ms{peak:>9.0f}{steady:>11.0f}{peak / steady:>13.2f}")
    print(
        f"outcomes: {sorted({row['outcome'] for row in r['built'] + r['stored']})}; runs: {len(r['built'])} "
        f"(first talks built: {[round(x['first'], 2) for x in r['built']]}, "
        f"stored: {[round(x['first'], 2) for x in r['stored']]})"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inside", help=argparse.SUPPRESS)
    parser.add_argument("--bot", help=argparse.SUPPRESS)
    parser.add_argument("--question", help=argparse.SUPPRESS)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--embeddings",
        default="off",
        choices=["on", "off"],
        help="off (default): the generated bot has no vectors, its lexical index serves, as right after an import "
        "while the vectors are computed; on: every formulation gets a synthetic vector and the embeddings' index "
        "serves (times and memory only: the scores mean nothing)",
    )
    parser.add_argument("--databases", nargs="+", default=["sqlite", "postgres"], choices=["postgres", "sqlite"])
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432/indexbench")
    parser.add_argument("--workdir", default="/tmp/index-bench")
    parser.add_argument("--json", action="store_true", help="Print all figures as JSON at the end.")
    args = parser.parse_args()
    if args.inside:
        print(json.dumps(run_inside(args)))
        return
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    file = workdir / f"generated-{args.items}.xml"
    if not file.exists():
        phase("generate", dict(os.environ), file=file, items=args.items, formulations_per_item=5)
    everything = {}
    for database in args.databases:
        if database == "postgres":
            url = fresh_postgres(args.postgres_url)
        else:
            for leftover in workdir.glob("indexbench.sqlite3*"):
                leftover.unlink()
            url = f"sqlite:///{workdir / 'indexbench.sqlite3'}"
        everything[database] = bench(database, url, file, workdir, args)
        report(database, everything[database])
    if args.json:
        print(json.dumps(everything, indent=2))


if __name__ == "__main__":
    main()
