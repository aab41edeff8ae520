"""Benchmark of the knowledge base exchange: import and export of a generated bot with 100,000
knowledge items and 500,000 formulations, on PostgreSQL and SQLite, time and peak memory.

Each phase runs in a fresh process (`manage.py import_kb` / `export_kb` through call_command) that
reports its own wall time and peak resident memory (resource.getrusage ru_maxrss; the parent stays
small because Linux carries a parent's peak at fork time into the child's figure). Phases:

    generate   write the knowledge base file (not part of the budget)
    import     import_kb into an empty bot (the file's ids are not free here: fresh ids)
    export     export_kb of that bot
    reimport   import_kb of the export into the same bot (replaces 100,000 items; ids kept)
    reexport   export_kb again; its bytes must equal the first export's (the round trip)

Usage (from the repository root):
    .venv/bin/python bench/kb_import.py [--items 100000] [--formulations-per-item 5]
        [--databases postgres sqlite] [--postgres-url postgres://postgres@127.0.0.1:5432/kbbench]
        [--workdir /tmp/kb-bench]

The PostgreSQL database named in --postgres-url is dropped and created again. Figures and how to
read them: bench/KB_EXCHANGE.md.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
BUDGET = {"import": 60.0, "export": 20.0, "memory_mb": 500.0}


def run_phase(args) -> dict:
    """Inside the phase's own process: do one thing, report time and peak memory as JSON."""
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    started = time.perf_counter()
    result: dict = {}
    if args.phase == "setup":
        call_command("migrate", verbosity=0)
        from bots.models import Bot, BotLanguage

        bot = Bot.objects.create(name="Benchmark bot", default_language="fr")
        BotLanguage.objects.bulk_create([BotLanguage(bot=bot, code="fr"), BotLanguage(bot=bot, code="en")])
        result["bot"] = str(bot.uuid)
    elif args.phase == "generate":
        from knowledge.exchange.generate import write_generated_file

        result["bytes"] = write_generated_file(args.file, args.items, args.formulations_per_item)
    elif args.phase == "import":
        from io import StringIO

        out = StringIO()
        call_command("import_kb", args.bot, args.file, "--max-bytes", "0", stdout=out, verbosity=0)
        result["report"] = json.loads(out.getvalue())
    elif args.phase == "export":
        from io import StringIO

        call_command("export_kb", args.bot, args.file, stderr=StringIO(), verbosity=0)
        result["bytes"] = Path(args.file).stat().st_size
    result["seconds"] = time.perf_counter() - started
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    return result


def phase(name: str, env: dict, **options) -> dict:
    command = [sys.executable, __file__, "--phase", name]
    for key, value in options.items():
        command += [f"--{key.replace('_', '-')}", str(value)]
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"phase {name} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fresh_postgres(url: str) -> str:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/") or "kbbench"
    maintenance = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url


def bench(database: str, url: str, file: Path, workdir: Path, sizes: dict) -> dict:
    env = dict(os.environ, DATABASE_URL=url, MATCHING_EMBEDDINGS="off", LOG_LEVEL="WARNING")
    env.pop("REDIS_URL", None)
    bot = phase("setup", env)["bot"]
    first, second = workdir / f"{database}-export.xml", workdir / f"{database}-reexport.xml"
    results = {
        "import": phase("import", env, bot=bot, file=file),
        "export": phase("export", env, bot=bot, file=first),
        "reimport": phase("import", env, bot=bot, file=first),
        "reexport": phase("export", env, bot=bot, file=second),
    }
    # Compared in small blocks: this process must stay small, since Linux counts a parent's peak
    # memory at fork time into its child's ru_maxrss.
    results["round_trip_identical"] = filecmp.cmp(first, second, shallow=False)
    results["ids_kept_on_reimport"] = results["reimport"]["report"]["idsKept"]
    results.update(sizes)
    return results


def report(database: str, results: dict) -> None:
    imported = results["import"]["report"]["imported"]
    print(
        f"\n== {database}: {imported['knowledgeItems']['total']} items, {imported['formulations']} formulations, "
        f"{imported['answers']} answers, file {results['file_mb']:.0f} MB =="
    )
    print(f"{'phase':<10} {'seconds':>8} {'peak MB':>8}")
    for name in ("import", "export", "reimport", "reexport"):
        print(f"{name:<10} {results[name]['seconds']:>8.1f} {results[name]['peak_mb']:>8.0f}")
    print(
        f"round trip byte-identical: {results['round_trip_identical']}; ids kept on re-import: "
        f"{results['ids_kept_on_reimport']}"
    )
    if database == "postgres":
        worst_import = max(results["import"]["seconds"], results["reimport"]["seconds"])
        worst_export = max(results["export"]["seconds"], results["reexport"]["seconds"])
        peak = max(results[name]["peak_mb"] for name in ("import", "export", "reimport", "reexport"))
        print(
            f"budget: import {worst_import:.1f} s / {BUDGET['import']:.0f} s, export {worst_export:.1f} s / "
            f"{BUDGET['export']:.0f} s, peak {peak:.0f} MB / {BUDGET['memory_mb']:.0f} MB: "
            + (
                "within"
                if worst_import <= BUDGET["import"] and worst_export <= BUDGET["export"] and peak <= BUDGET["memory_mb"]
                else "OVER"
            )
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--bot", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--formulations-per-item", type=int, default=5)
    parser.add_argument("--databases", nargs="+", default=["postgres", "sqlite"], choices=["postgres", "sqlite"])
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432/kbbench")
    parser.add_argument("--workdir", default="/tmp/kb-bench")
    parser.add_argument("--json", action="store_true", help="Print all figures as JSON at the end.")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(run_phase(args)))
        return

    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    file = workdir / f"generated-{args.items}.xml"
    generated = phase(
        "generate", dict(os.environ), file=file, items=args.items, formulations_per_item=args.formulations_per_item
    )
    sizes = {"file_mb": generated["bytes"] / 2**20, "generate_seconds": generated["seconds"]}
    print(f"generated {file} ({sizes['file_mb']:.0f} MB) in {generated['seconds']:.1f} s")
    everything = {}
    for database in args.databases:
        if database == "postgres":
            url = fresh_postgres(args.postgres_url)
        else:
            sqlite = workdir / "kbbench.sqlite3"
            for leftover in workdir.glob("kbbench.sqlite3*"):
                leftover.unlink()
            url = f"sqlite:///{sqlite}"
        everything[database] = bench(database, url, file, workdir, sizes)
        report(database, everything[database])
    if args.json:
        print(json.dumps(everything, indent=2))


if __name__ == "__main__":
    main()
