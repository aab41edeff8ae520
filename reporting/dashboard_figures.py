"""The home page's figures over the user's bots, each one query on indexed, recent rows (today, the last 7
days, what is live now), never an aggregation over a bot's whole history."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from bots.time_zones import zone_named
from dialogs.learning.inputs import MISUNDERSTOOD, REWORDED
from dialogs.models import Dialog, Interaction
from knowledge.models import KnowledgeItem
from knowledge.vectors.models import VectorJob
from livechat.models import Callback, LivechatRequest, Operator
from reporting.analytics.report import UNDERSTOOD, Rate

REVIEW_DAYS = 7  # the home page's "to review": a week's misunderstood questions, the learning page has 90 days
LATEST_JOBS = 5


@dataclass
class Bots:
    """The user's bots (id and name), and the zone their "today" is counted in."""

    names: dict[int, str]
    zone: ZoneInfo

    @property
    def ids(self) -> list[int]:
        return list(self.names)


def bots(queryset) -> Bots:
    """One query. Today is the bots' day when they share a time zone, else the server's."""
    rows = list(queryset.order_by("name", "pk").values_list("pk", "name", "time_zone"))
    zones = {zone for _, _, zone in rows}
    zone = zone_named(zones.pop()) if len(zones) == 1 else None
    return Bots(names={pk: name for pk, name, _ in rows}, zone=zone or ZoneInfo(settings.TIME_ZONE))


def start_of_today(zone: ZoneInfo, now: datetime | None = None) -> datetime:
    local = timezone.localtime(now or timezone.now(), zone)
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


@dataclass
class Today:
    dialogs: int
    understood: Rate  # questions typed today that the bot understood, of all typed today
    to_review: int  # misunderstood or answered with rewordings in the last REVIEW_DAYS days


def today(mine: Bots, now: datetime | None = None) -> Today:
    """Two queries: today's dialogs, and the typed questions of the week (today's and those to review)."""
    start = start_of_today(mine.zone, now)
    dialogs = Dialog.objects.filter(bot_id__in=mine.ids, qualification_mode=False, first_activity__gte=start).count()
    # As analytics and learning count them: visitors' typed inputs outside qualification mode.
    typed = Q(origin="")
    week = Interaction.objects.filter(
        bot_id__in=mine.ids,
        counted=True,
        human=False,
        created_at__gte=min(start, (now or timezone.now()) - timedelta(days=REVIEW_DAYS)),
    ).exclude(user_input="")
    figures = week.aggregate(
        questions=Count("id", filter=typed & Q(created_at__gte=start)),
        understood=Count("id", filter=typed & Q(created_at__gte=start, type_response__in=UNDERSTOOD)),
        to_review=Count("id", filter=Q(type_response__in=MISUNDERSTOOD + REWORDED)),
    )
    return Today(
        dialogs=dialogs,
        understood=Rate(figures["understood"], figures["questions"]),
        to_review=figures["to_review"],
    )


@dataclass
class LiveChat:
    operators_online: int = 0  # available or busy (away and offline take no visitor)
    operators: int = 0
    with_operator: int = 0
    queued: int = 0
    callbacks: int = 0  # to call back


def live_chat(mine: Bots, account_id: int | None) -> LiveChat:
    """Three queries: the operators by status, the open handovers by status, the callbacks to make."""
    load = LiveChat()
    operators = Operator.objects.all() if account_id is None else Operator.objects.filter(account_id=account_id)
    for row in operators.values("status").annotate(n=Count("id")).order_by():
        load.operators += row["n"]
        if row["status"] in (Operator.Status.AVAILABLE, Operator.Status.BUSY):
            load.operators_online += row["n"]
    open_requests = LivechatRequest.objects.filter(
        bot_id__in=mine.ids, status__in=[LivechatRequest.Status.QUEUED, LivechatRequest.Status.ASSIGNED]
    )
    for row in open_requests.values("status").annotate(n=Count("id")).order_by():
        if row["status"] == LivechatRequest.Status.QUEUED:
            load.queued = row["n"]
        else:
            load.with_operator = row["n"]
    load.callbacks = Callback.objects.filter(bot_id__in=mine.ids, status=Callback.Status.OPEN).count()
    return load


@dataclass
class Job:
    bot: str
    bot_id: int
    state: str
    done: int
    total: int
    scheduled_at: datetime
    finished_at: datetime | None
    error: str
    link: str = ""  # the bot's import / export page, where the progress is followed
    state_label: str = ""

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def vector_jobs(mine: Bots) -> list[Job]:
    """One query: the latest imports' vector jobs (one job per bot, rescheduled by each import)."""
    rows = VectorJob.objects.filter(bot_id__in=mine.ids).order_by("-scheduled_at")[:LATEST_JOBS]
    return [
        Job(
            bot=mine.names.get(job.bot_id, ""),
            bot_id=job.bot_id,
            state=job.state,
            done=job.done,
            total=job.total,
            scheduled_at=job.scheduled_at,
            finished_at=job.finished_at,
            error=job.error[:200],
        )
        for job in rows
    ]


@dataclass
class Knowledge:
    by_status: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.by_status.values())


def knowledge(mine: Bots) -> Knowledge:
    """One query: the bots' items by status (an index on bot and status)."""
    rows = KnowledgeItem.objects.filter(bot_id__in=mine.ids).values("status").annotate(n=Count("id")).order_by()
    return Knowledge(by_status={row["status"]: row["n"] for row in rows})
