"""Dialog retention: a bot's dialogs whose last activity is older than its `dialogs.retention.days`
preference (0 or absent: kept forever) are deleted with everything that hangs on them, in batches.
Each purge is logged (logger `dialogs.retention`, INFO, counts per bot) and stored as a DialogPurge."""

import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from bots.models import Bot
from preferences.services import bot_value

from ..models import ClientError, Dialog, DialogPurge, Visit

RETENTION_KEY = "dialogs.retention.days"
BATCH_SIZE = 500
log = logging.getLogger("dialogs.retention")


@dataclass
class PurgeReport:
    bot: Bot
    days: int
    cutoff: datetime
    deleted: Counter = field(default_factory=Counter)

    @property
    def dialogs(self) -> int:
        return self.deleted[Dialog._meta.label]

    @property
    def interactions(self) -> int:
        return self.deleted["dialogs.Interaction"]

    def summary(self) -> str:
        others = ", ".join(f"{label} {count}" for label, count in sorted(self.deleted.items()) if count)
        return (
            f"bot {self.bot.uuid} ({self.bot.name}): retention {self.days} days, dialogs last active before "
            f"{self.cutoff.isoformat()}: {self.dialogs} dialogs, {self.interactions} interactions deleted"
            + (f" ({others})" if others else "")
        )


def retention_days(bot: Bot) -> int:
    value = bot_value(bot, RETENTION_KEY, "0") or "0"
    try:
        return max(int(value.strip()), 0)
    except ValueError:
        # Stored before the key was known, or by hand: keeping the dialogs is the safe reading.
        log.warning("Bot %s: %s=%r is not a number of days; its dialogs are kept", bot.uuid, RETENTION_KEY, value)
        return 0


def purge_bot(bot: Bot, *, now: datetime | None = None, batch_size: int = BATCH_SIZE) -> PurgeReport | None:
    """Delete the bot's dialogs older than its retention; None when it keeps them forever."""
    days = retention_days(bot)
    if days <= 0:
        return None
    report = PurgeReport(bot, days, (now or timezone.now()) - timedelta(days=days))
    old = Dialog.objects.filter(bot=bot, last_activity__lt=report.cutoff).order_by("id")
    while batch := list(old.values_list("id", "uuid")[:batch_size]):
        ids = [dialog_id for dialog_id, _ in batch]
        context_ids = [str(context_id) for _, context_id in batch]
        with transaction.atomic():
            # Visits and client errors name their dialog by its context id, not by a foreign key.
            for model in (Visit, ClientError):
                _, counts = model.objects.filter(bot=bot, context_id__in=context_ids).delete()
                report.deleted.update(counts)
            # Django follows every foreign key to the dialog: interactions, live chat's requests and
            # events, uploads (deleted with it), callbacks (kept, unlinked).
            _, counts = Dialog.objects.filter(id__in=ids).delete()
            report.deleted.update(counts)
    DialogPurge.objects.create(
        bot=bot,
        ran_at=now or timezone.now(),
        retention_days=days,
        cutoff=report.cutoff,
        dialogs=report.dialogs,
        interactions=report.interactions,
        details={label: count for label, count in report.deleted.items() if count},
    )
    log.info("Dialogs purged: %s", report.summary())
    return report


def purge_all(bots=None, *, now: datetime | None = None) -> list[PurgeReport]:
    """Every bot (or those given) with a retention set; bots that keep their dialogs are skipped."""
    reports = []
    for bot in bots if bots is not None else Bot.objects.order_by("id"):
        report = purge_bot(bot, now=now)
        if report is not None:
            reports.append(report)
    return reports
