"""Time to build a bot's analytics report (reporting/analytics/report.py) over the last 12 months, against the
cost of reading the same period's rows once (a COUNT of its dialogs and one of its interactions: the floor
any report over them pays), in the same run, on a scratch SQLite database and optionally on PostgreSQL.

    .venv/bin/python bench/analytics.py [--dialogs 20000] [--postgres-url postgres://postgres@127.0.0.1:5432/analyticsbench]

Seeding (not timed): dialogs spread over the last 365 days, 5 interactions each on average (answers,
rewordings and their clicks, misunderstood questions, feedback), a few going to live chat, written with
bulk inserts. Each measure is the median of 5 runs of the whole report (every query it makes), with each
query's own time from Django's query log."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

RUNS = 5


def seed(n_dialogs: int) -> int:
    from datetime import timedelta

    from django.utils import timezone

    from accounts.models import Account
    from bots.models import Bot
    from dialogs.models import Dialog, Interaction
    from knowledge.models import KnowledgeItem
    from livechat.models import LivechatRequest

    rng = random.Random(7)
    bot = Bot.objects.create(name="Analytics bench", account=Account.objects.create(name="Bench"))
    items = [KnowledgeItem.objects.create(bot=bot, label=f"Item {n}", status="published") for n in range(40)]
    now = timezone.now()
    dialogs = []
    for _ in range(n_dialogs):
        started = now - timedelta(seconds=rng.randrange(365 * 86400))
        dialogs.append(
            Dialog(bot=bot, language="fr", first_activity=started, last_activity=started + timedelta(minutes=5))
        )
    Dialog.objects.bulk_create(dialogs, batch_size=2000)
    interactions, requests = [], []
    for dialog in dialogs:
        moment = dialog.first_activity
        for turn in range(rng.randint(2, 8)):
            moment += timedelta(seconds=20)
            roll = rng.random()
            item = rng.choice(items)
            fields = dict(dialog=dialog, bot=bot, created_at=moment, user_input=f"question {turn}", language="fr")
            if roll < 0.6:
                feedback = rng.choice(["", "", "", Interaction.Feedback.POSITIVE, Interaction.Feedback.NEGATIVE])
                fields.update(type_response="DMUnderstoodQuestion", knowledge_item=item, feedback=feedback)
            elif roll < 0.75:
                fields.update(type_response="RWSeveralRewords")
                interactions.append(Interaction(**fields))
                moment += timedelta(seconds=10)
                fields = dict(fields, created_at=moment, type_response="DMUnderstoodQuestion", origin="reword_auto")
                fields["knowledge_item"] = item
            else:
                fields.update(type_response="GBMisunderstoodQuestion")
            interactions.append(Interaction(**fields))
        if rng.random() < 0.03:
            requests.append(
                LivechatRequest(
                    bot=bot,
                    dialog=dialog,
                    account=bot.account,
                    status=LivechatRequest.Status.ENDED,
                    created_at=moment,
                    assigned_at=moment + timedelta(seconds=rng.randrange(10, 300)),
                )
            )
    Interaction.objects.bulk_create(interactions, batch_size=5000)
    LivechatRequest.objects.bulk_create(requests, batch_size=2000)
    print(
        f"  seeded: {len(dialogs):,} dialogs, {len(interactions):,} interactions, {len(requests):,} live-chat requests"
    )
    return bot.pk


def measure(bot_id: int) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bots.models import Bot
    from dialogs.models import Dialog, Interaction
    from reporting.analytics.periods import PeriodForm
    from reporting.analytics.report import build_report

    bot = Bot.objects.get(pk=bot_id)
    form = PeriodForm({"bot": bot.pk, "period": "Last12Months"}, bots=Bot.objects.filter(pk=bot.pk))
    assert form.is_valid(), form.errors
    window = form.window()

    def floor():
        Dialog.objects.filter(bot=bot, first_activity__gte=window.start, first_activity__lt=window.end).count()
        Interaction.objects.filter(bot=bot, created_at__gte=window.start, created_at__lt=window.end).count()

    def timed(function):
        seconds, per_query = [], []
        for _ in range(RUNS):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                function()
                seconds.append(time.perf_counter() - started)
            per_query.append([float(q["time"]) for q in captured.captured_queries])
        return statistics.median(seconds), per_query[len(per_query) // 2]

    floor_s, _ = timed(floor)
    report_s, queries = timed(lambda: build_report(bot, window))
    report = build_report(bot, window)
    print(f"  period: {window.label}, {report.total_dialogs:,} dialogs, {report.total_interactions:,} interactions")
    print(f"  baseline, one COUNT of the dialogs and one of the interactions: {floor_s * 1000:8.1f} ms")
    print(f"  the analytics report (median of {RUNS}):                     {report_s * 1000:8.1f} ms")
    print("  its queries, ms: " + ", ".join(f"{q * 1000:.0f}" for q in queries))
    print(f"  report / baseline: {report_s / floor_s:.1f}x")


def child(database_url: str, n_dialogs: int) -> None:
    """One database: migrated, seeded and measured in this process."""
    os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="analytics-bench-")
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.DEBUG = False
    call_command("migrate", verbosity=0)
    bot_id = seed(n_dialogs)
    measure(bot_id)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogs", type=int, default=20_000)
    parser.add_argument("--postgres-url", default="", help="a scratch database, dropped and created again")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.dialogs)
        return
    print(f"analytics report, last 12 months, {args.dialogs:,} dialogs")
    targets = [("SQLite", "")]
    if args.postgres_url:
        from bench.kb_import import fresh_postgres

        targets.append(("PostgreSQL", fresh_postgres(args.postgres_url)))
    for name, url in targets:
        print(name)
        # Each database in a process of its own: Django is set up once per process.
        subprocess.run([sys.executable, __file__, "--child", url, "--dialogs", str(args.dialogs)], check=True)


if __name__ == "__main__":
    main()
