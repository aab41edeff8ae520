"""`manage.py purge_dialogs [--bot BOT]`: delete the dialogs older than each bot's retention
(`dialogs.retention.days`; 0 or absent: kept), logged and recorded per bot (dialogs/bulk/retention.py).
Meant for cron, e.g. once a night."""

from django.core.management.base import BaseCommand

from dialogs.bulk.retention import RETENTION_KEY, purge_all
from knowledge.exchange.bots import find_bot


class Command(BaseCommand):
    help = f"Delete the dialogs older than each bot's {RETENTION_KEY} preference (0 or absent: kept forever)."

    def add_arguments(self, parser):
        parser.add_argument("--bot", help="Only this bot (its UUID or its exact name).")

    def handle(self, *args, bot=None, **options):
        reports = purge_all([find_bot(bot)] if bot else None)
        for report in reports:
            self.stdout.write(report.summary())
        if not reports:
            self.stdout.write(f"No bot has a {RETENTION_KEY} preference above 0: nothing purged.")
