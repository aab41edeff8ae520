"""Benchmark of issue 12 items 3-4: a 15,000-formulation English bot imported through the servlet into a
process that serves talks (its vector worker running), then its memory per bot.

Phases, each in a fresh process (figures of one phase are not skewed by another's memory):

    setup    migrate a fresh database, create two English bots, write the knowledge base file
             (BANKING77's train and test questions as formulations of its 77 intents, topped up to
             --formulations with one-word-dropped variations; answers are the intent names)
    serve    import the file through the servlet (POST bot/knowledgebase/import), then talk at once and
             every second while the worker computes the vectors; report the import's answer, the first
             talk's time, every talk's matcher and time, and when the embeddings took over
    cold     the same bot's vectors emptied, VECTORS_SYNC_LIMIT out of the way: the first talk computes
             every vector inside the talk, as before this change (the cold-build time to compare with)
    memory   RSS of a process that loaded the models, then after each bot's index is built from stored
             vectors (the classifier final); the second bot is a copy of the first (vectors copied), the
             third a bot of the same size with other texts (the first's formulations with their words
             reversed, its vectors); then what the process keeps once every index is dropped

Usage (from the repository root; the whole run takes a few minutes on this machine):
    .venv/bin/python bench/vectors_import.py [--formulations 15000] [--database-url sqlite:////tmp/vec-bench/db.sqlite3]
        [--phases setup serve cold memory] [--python PYTHON --repo PATH for the memory phase of another checkout]
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from xml.sax.saxutils import escape

REPO = Path(__file__).resolve().parent.parent
BANKING77 = (REPO / ".." / "shared" / "bench" / "banking77").resolve()


def rss_mb() -> float:
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def knowledge_base(formulations: int) -> str:
    sys.path.insert(0, str(REPO))
    from bench._common import load_split

    rows = load_split(BANKING77, "train") + load_split(BANKING77, "test")
    rng = random.Random(0)
    texts = [t for t, _ in rows]
    seen = set(texts)
    while len(rows) < formulations:
        text, category = rows[rng.randrange(len(rows))]
        words = text.split()
        if len(words) < 4:
            continue
        words.pop(rng.randrange(len(words)))
        variant = " ".join(words)
        if variant not in seen:
            seen.add(variant)
            rows.append((variant, category))
    rows = rows[:formulations]
    by_item: dict[str, list[str]] = {}
    for text, category in rows:
        by_item.setdefault(category, []).append(text)
    items = []
    for number, (category, texts) in enumerate(sorted(by_item.items()), start=1):
        body = "".join(f'      <formulation language="en">{escape(t)}</formulation>\n' for t in texts)
        items.append(
            f'    <knowledgeItem id="{number}" kind="question" status="published">\n{body}'
            f'      <answer language="en" space="Default"><text>{escape(category)}</text></answer>\n'
            "    </knowledgeItem>\n"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<knowledgeBase formatVersion="1">\n'
        '  <languages default="en">\n    <language code="en"/>\n  </languages>\n'
        '  <spaces>\n    <space name="Default" default="true"/>\n  </spaces>\n'
        f"  <knowledgeItems>\n{''.join(items)}  </knowledgeItems>\n</knowledgeBase>\n"
    )


def _reverse_formulation(line: str) -> str:
    """A knowledge base line with its formulation's words in reverse order (other lines as they are)."""
    start, end = line.find(">"), line.rfind("</formulation>")
    if "<formulation " not in line or end < 0:
        return line
    return line[: start + 1] + " ".join(line[start + 1 : end].split()[::-1]) + line[end:]


def talk(client, bot_uuid: str, text: str) -> tuple[float, dict]:
    started = time.perf_counter()
    response = client.post(
        f"/servlet/api/chat/talk/{bot_uuid}",
        {"userInput": text, "language": "en", "space": "Default", "clientId": "bench", "mode": "U3luY2hyb24="},
    )
    assert response.status_code == 200, response.content
    return time.perf_counter() - started, response.json()


def run_phase(args) -> dict:
    sys.path.insert(0, str(args.repo))
    os.chdir(args.repo)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from bots.models import Bot, BotLanguage, Space

    result: dict = {}
    if args.phase == "setup":
        call_command("migrate", verbosity=0)
        from django.contrib.auth import get_user_model

        from accounts.models import Account, ApiToken, Membership, Role

        account = Account.objects.create(name="Bench")
        bots = []
        for name in ("Bench EN", "Bench EN copy"):
            bot = Bot.objects.create(name=name, default_language="en", account=account)
            BotLanguage.objects.create(bot=bot, code="en")
            Space.objects.get_or_create(bot=bot, name="Default", defaults={"is_default": True})
            bots.append(str(bot.uuid))
        user = get_user_model().objects.create_user("bench", "bench@example.org")
        Membership.objects.create(user=user, account=account, role=Role.EDITOR)
        result["token"] = ApiToken.issue(user)[1]
        result["bots"] = bots
        Path(args.file).write_text(knowledge_base(args.formulations), encoding="utf-8")
    elif args.phase == "serve":
        from django.test import Client

        from knowledge import snapshot
        from knowledge.matching.embeddings import load_models
        from knowledge.vectors import worker

        load_models()
        worker.start()  # what a server process does at its first connection
        client = Client(HTTP_HOST="localhost")
        bot_uuid = args.bot
        # A knowledge base new to the bot: no vector of a previous import may be kept by the import.
        from knowledge.models import Formulation

        Formulation.objects.filter(item__bot__uuid=bot_uuid).update(vector=None)
        with open(args.file, "rb") as f:
            started = time.perf_counter()
            response = client.post(
                f"/servlet/api/bot/knowledgebase/import/{bot_uuid}", {"file": f}, HTTP_AUTHORIZATION=args.token
            )
        imported_at = time.perf_counter()
        assert response.status_code == 200, response.content
        result["import_seconds"] = imported_at - started
        result["import_answer_vectors"] = response.json().get("vectors")
        bot = Bot.objects.get(uuid=bot_uuid)
        # The worker builds the bot's lexical index before computing its vectors: the first talk comes once
        # it is ready (a talk during that build waits for it).
        while not (snapshot._cache.get(bot.pk) and snapshot._cache[bot.pk]._matchers):
            time.sleep(0.05)
        result["lexical_index_ready_after_import_seconds"] = round(time.perf_counter() - imported_at, 2)
        questions = ["I still have not received my new card", "how do I top up by card?", "my card was swallowed"]
        talks = []
        took_over = None
        done = threading.Event()
        done_at: list[float] = []
        threading.Thread(
            target=lambda: (worker.wait_idle(), done_at.append(time.perf_counter()), done.set()), daemon=True
        ).start()
        i = 0
        after = 0  # talks once the worker is done: the embeddings answer them
        while after < 3:
            after += done.is_set()
            seconds, _ = talk(client, bot_uuid, questions[i % len(questions)])
            bot.refresh_from_db()
            mode = snapshot.snapshot_for(bot).matcher("en").config.mode
            talks.append(
                {"at": round(time.perf_counter() - imported_at, 2), "seconds": round(seconds, 3), "mode": mode}
            )
            if mode == "embeddings" and took_over is None:
                took_over = talks[-1]["at"]
            i += 1
            done.wait(1.0)
        upgraded_at = done_at[0] - imported_at
        status = client.get(f"/servlet/api/bot/knowledgebase/status/{bot_uuid}", HTTP_AUTHORIZATION=args.token)
        result.update(
            first_talk_seconds=talks[0]["seconds"],
            first_talk_mode=talks[0]["mode"],
            lexical_talks_max_seconds=max((t["seconds"] for t in talks if t["mode"] == "lexical"), default=None),
            worker_done_after_import_seconds=round(upgraded_at, 1),
            first_embeddings_talk_at=took_over,
            status_after=status.json(),
            talks=talks,
        )
        worker.stop()
    elif args.phase == "cold":
        from django.conf import settings
        from django.test import Client

        from knowledge.matching.embeddings import load_models
        from knowledge.models import Formulation

        load_models()
        settings.VECTORS_SYNC_LIMIT = 10**9
        bot = Bot.objects.get(uuid=args.bot)
        kept = list(Formulation.objects.filter(item__bot=bot).values_list("id", "vector"))
        Formulation.objects.filter(item__bot=bot).update(vector=None)
        try:
            seconds, _ = talk(Client(HTTP_HOST="localhost"), args.bot, "I still have not received my new card")
        finally:
            Formulation.objects.bulk_update([Formulation(id=i, vector=v) for i, v in kept], ["vector"], batch_size=1000)
        result["cold_first_talk_seconds"] = seconds
    elif args.phase == "memory":
        from knowledge import snapshot
        from knowledge.matching.embeddings import load_models
        from knowledge.models import Formulation

        first, second = (Bot.objects.get(uuid=u) for u in args.bots.split(","))
        # A third bot of the same size whose texts differ (each formulation's words in reverse order: new
        # texts and bigrams, the same words), to measure a bot that shares no analysed text with another.
        other = Bot.objects.filter(name="Bench EN other").first()
        if other is None:
            other = Bot.objects.create(name="Bench EN other", default_language="en", account=first.account)
            BotLanguage.objects.create(bot=other, code="en")
            Space.objects.get_or_create(bot=other, name="Default", defaults={"is_default": True})
        of_text = dict(Formulation.objects.filter(item__bot=first).values_list("text", "vector"))
        reversed_file = Path(args.file).with_suffix(".reversed.xml")
        for bot, file, text_of in (
            (second, Path(args.file), lambda text: text),
            (other, reversed_file, lambda text: " ".join(text.split()[::-1])),
        ):
            if not Formulation.objects.filter(item__bot=bot).exists():
                if bot is other:
                    lines = Path(args.file).read_text(encoding="utf-8").splitlines(keepends=True)
                    reversed_file.write_text("".join(_reverse_formulation(line) for line in lines), encoding="utf-8")
                with open(os.devnull, "w") as quiet:
                    call_command("import_kb", str(bot.uuid), str(file), verbosity=0, stdout=quiet)
            # The first bot's vectors by text (no model run; the values do not change the memory taken).
            by_text = {text_of(text): vector for text, vector in of_text.items()}
            fallback = next(iter(of_text.values()))
            Formulation.objects.bulk_update(
                [
                    Formulation(id=i, vector=by_text.get(t, fallback))
                    for i, t in Formulation.objects.filter(item__bot=bot).values_list("id", "text")
                ],
                ["vector"],
                batch_size=1000,
            )
        del of_text, by_text
        load_models()
        # The baseline without the heap's free pages too, so that the first bot's trimmed growth is its own.
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        result["rss_models_mb"] = rss_mb()
        for name, bot in (("first", first), ("second", second), ("other", other)):
            bot.refresh_from_db()
            started = time.perf_counter()
            matcher = snapshot.snapshot_for(bot).matcher("en")
            matcher.wait_ready()
            result[f"{name}_build_seconds"] = round(time.perf_counter() - started, 2)
            result[f"{name}_mode"] = matcher.config.mode
            result[f"rss_after_{name}_mb"] = rss_mb()
            # What the process still holds once the C heap's free pages go back to the system.
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            result[f"rss_after_{name}_trimmed_mb"] = rss_mb()
            try:
                from knowledge.vectors import budget

                result[f"{name}_index_estimate_mb"] = round(budget.index_bytes(matcher) / 2**20, 1)
            except ImportError:  # a checkout from before the budget
                pass
        result["per_bot_trimmed_mb"] = [
            round(result["rss_after_first_trimmed_mb"] - result["rss_models_mb"], 1),
            round(result["rss_after_second_trimmed_mb"] - result["rss_after_first_trimmed_mb"], 1),
            round(result["rss_after_other_trimmed_mb"] - result["rss_after_second_trimmed_mb"], 1),
        ]
        result["per_bot_mb"] = [
            round(result["rss_after_first_mb"] - result["rss_models_mb"], 1),
            round(result["rss_after_second_mb"] - result["rss_after_first_mb"], 1),
            round(result["rss_after_other_mb"] - result["rss_after_second_mb"], 1),
        ]
        # What stays in the process once every index is dropped: its caches and allocators, not a bot's.
        del matcher
        snapshot._cache.clear()
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        result["rss_after_dropping_all_trimmed_mb"] = rss_mb()
        result["process_residual_mb"] = round(result["rss_after_dropping_all_trimmed_mb"] - result["rss_models_mb"], 1)
    return result


def phase(name: str, env: dict, python: str = sys.executable, repo: Path = REPO, **options) -> dict:
    command = [python, str(Path(__file__).resolve()), "--phase", name, "--repo", str(repo)]
    for key, value in options.items():
        command += [f"--{key.replace('_', '-')}", str(value)]
    done = subprocess.run(command, env=env, cwd=repo, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"phase {name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--bot", help=argparse.SUPPRESS)
    parser.add_argument("--bots", help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--file", default="/tmp/vec-bench/kb-15000.xml")
    parser.add_argument("--formulations", type=int, default=15_000)
    parser.add_argument("--database-url", default="sqlite:////tmp/vec-bench/db.sqlite3")
    parser.add_argument("--phases", nargs="+", default=["setup", "serve", "cold", "memory"])
    parser.add_argument("--python", default=sys.executable, help="Python of the checkout the memory phase runs")
    parser.add_argument("--repo", default=str(REPO), help="checkout the memory phase runs (default: this one)")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(run_phase(args)))
        return
    Path(args.file).parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, DATABASE_URL=args.database_url, MATCHING_EMBEDDINGS="on", LOG_LEVEL="WARNING")
    env.pop("REDIS_URL", None)
    state_file = Path(args.file).with_suffix(".state.json")
    state = json.loads(state_file.read_text()) if state_file.exists() else {}
    for name in args.phases:
        if name == "setup":
            if args.database_url.startswith("sqlite:///"):
                Path(args.database_url[len("sqlite:///") :]).unlink(missing_ok=True)
            state = phase("setup", env, file=args.file, formulations=args.formulations)
            state_file.write_text(json.dumps(state))
        elif name == "serve":
            found = phase("serve", env, bot=state["bots"][0], token=state["token"], file=args.file)
            print(json.dumps({k: v for k, v in found.items() if k != "talks"}, indent=1))
            print("talks:", json.dumps(found["talks"]))
        elif name == "cold":
            print(json.dumps(phase("cold", env, bot=state["bots"][0])))
        elif name == "memory":
            found = phase(
                "memory", env, python=args.python, repo=Path(args.repo), bots=",".join(state["bots"]), file=args.file
            )
            print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
