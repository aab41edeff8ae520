"""A bot's analytics over a period, aggregated in the database: a fixed number of queries whatever the
volume (one row per day or per top item comes back). Qualification-mode dialogs never count."""

from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db import connection, transaction
from django.db.models import Count, DurationField, ExpressionWrapper, F, Max, OuterRef, Q, Subquery, Sum
from django.db.models.functions import TruncDate
from django.utils.translation import gettext_lazy as _

from dialogs.backoffice import qualification
from dialogs.models import ANSWERED_ID, Dialog, Interaction
from knowledge.models import Formulation
from livechat.models import LivechatRequest

from .periods import Window

# How the bot answered a question the visitor typed (dialogs/engine.py's typeResponse values).
UNDERSTOOD = ("DMUnderstoodQuestion",)
REWORDED = ("RWOneReword", "RWSeveralRewords")
MISUNDERSTOOD = ("GBMisunderstoodQuestion", "GBTooManyMisunderstoodQuestions", "GBTooLongSentence")
REWORD_CLICK = "reword_auto"
# The Day field counting the dialogs of each qualification (the others, "none", have no field).
QUALIFIED = {
    qualification.DIRECT: "dialogs_direct",
    qualification.RECOVERED: "dialogs_recovered",
    qualification.FAILED: "dialogs_failed",
}
TOP_ITEMS = 10
E = LivechatRequest.EndReason
# Why a request for a human was never taken, as the live-chat card lists it.
MISSED_REASONS = (
    (E.NOBODY_AVAILABLE, _("nobody was available")),
    (E.OUTSIDE_HOURS, _("outside opening hours")),
    (E.VISITOR_LEFT_QUEUE, _("the visitor left the queue")),
    (E.QUEUE_TIMEOUT, _("nobody took it in time")),
    (E.VISITOR_GONE, _("the visitor closed the chatbox")),
)


def readable_wait(seconds: float | None) -> str:
    """A waiting time as people say it: 45 s, 2 min 05 s, 1 h 02 min; "–" when nobody waited."""
    if seconds is None:
        return "–"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


@dataclass(frozen=True)
class Rate:
    """A share shown with what it is made of: numerator / denominator."""

    numerator: int
    denominator: int

    @property
    def percent(self) -> float | None:
        return round(100 * self.numerator / self.denominator, 1) if self.denominator else None


@dataclass
class Day:
    day: date
    dialogs: int = 0
    # The dialogs' qualification (dialogs/backoffice/qualification.py); the others have none.
    dialogs_direct: int = 0
    dialogs_recovered: int = 0
    dialogs_failed: int = 0
    interactions: int = 0
    understood: int = 0
    reworded: int = 0
    misunderstood: int = 0
    positive: int = 0
    negative: int = 0
    livechat_requests: int = 0
    livechat_taken: int = 0
    # Requests no operator took, by why (MISSED_REASONS): missed demand, beside the answered.
    livechat_missed: dict[str, int] = field(default_factory=dict)
    # Sum and count of the waits that ended with an operator, for the day's average.
    livechat_wait: timedelta = timedelta(0)

    @property
    def questions(self) -> int:
        return self.understood + self.reworded + self.misunderstood

    @property
    def dialogs_qualified(self) -> int:
        return self.dialogs_direct + self.dialogs_recovered + self.dialogs_failed

    @property
    def livechat_not_taken(self) -> int:
        return self.livechat_requests - self.livechat_taken

    @property
    def average_wait_seconds(self) -> float | None:
        return round(self.livechat_wait.total_seconds() / self.livechat_taken, 1) if self.livechat_taken else None


@dataclass
class TopItem:
    item_id: int
    name: str
    uses: int
    positive: int
    negative: int
    # Deleted, or replaced by an import: named by the title its interactions kept, with no link.
    removed: bool = False

    @property
    def satisfaction(self) -> Rate:
        return Rate(self.positive, self.positive + self.negative)


@dataclass
class Report:
    window: Window
    days: list[Day]
    rewordings_offered: int = 0
    rewordings_clicked: int = 0
    top_items: list[TopItem] = field(default_factory=list)
    longest_wait: timedelta | None = None

    def total(self, name: str) -> int:
        return sum(getattr(day, name) for day in self.days)

    @property
    def total_dialogs(self) -> int:
        return self.total("dialogs")

    @property
    def total_interactions(self) -> int:
        return self.total("interactions")

    @property
    def longest_wait_seconds(self) -> float | None:
        return None if self.longest_wait is None else round(self.longest_wait.total_seconds(), 1)

    @property
    def average_wait_text(self) -> str:
        return readable_wait(self.average_wait_seconds)

    @property
    def longest_wait_text(self) -> str:
        return readable_wait(self.longest_wait_seconds)

    @property
    def questions(self) -> int:
        return self.total("questions")

    @property
    def understood(self) -> Rate:
        return Rate(self.total("understood"), self.questions)

    @property
    def dialogs_direct(self) -> Rate:
        return Rate(self.total("dialogs_direct"), self.total("dialogs_qualified"))

    @property
    def dialogs_recovered(self) -> Rate:
        return Rate(self.total("dialogs_recovered"), self.total("dialogs_qualified"))

    @property
    def dialogs_failed(self) -> Rate:
        return Rate(self.total("dialogs_failed"), self.total("dialogs_qualified"))

    @property
    def reworded(self) -> Rate:
        return Rate(self.total("reworded"), self.questions)

    @property
    def misunderstood(self) -> Rate:
        return Rate(self.total("misunderstood"), self.questions)

    @property
    def rewording_clicks(self) -> Rate:
        return Rate(self.rewordings_clicked, self.rewordings_offered)

    @property
    def satisfaction(self) -> Rate:
        positive = self.total("positive")
        return Rate(positive, positive + self.total("negative"))

    @property
    def livechat_taken(self) -> Rate:
        return Rate(self.total("livechat_taken"), self.total("livechat_requests"))

    @property
    def livechat_missed(self) -> list[tuple[str, Rate]]:
        """Why requests were not taken, each out of all requests of the period (reasons that happened)."""
        requests = self.total("livechat_requests")
        found = []
        for reason, label in MISSED_REASONS:
            count = sum(day.livechat_missed.get(reason, 0) for day in self.days)
            if count:
                found.append((label, Rate(count, requests)))
        return found

    @property
    def average_wait_seconds(self) -> float | None:
        taken = self.total("livechat_taken")
        waited = sum((day.livechat_wait for day in self.days), timedelta(0))
        return round(waited.total_seconds() / taken, 1) if taken else None


def build_report(bot, window: Window) -> Report:
    """The report, read in one transaction. On PostgreSQL without JIT compilation: these aggregations over
    thousands of rows are costed high enough for the JIT, whose compiling took 2.8-4.5 s of the dialogs
    query (a year of 19,000 dialogs), which ran in 1.2-1.4 s with or without it."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL jit = off")
        return _build_report(bot, window)


def _build_report(bot, window: Window) -> Report:
    """Five queries (dialogs per day, interactions per day, rewording clicks, top items, live chat), and a
    sixth to name the top items that have no label."""
    days = {day: Day(day) for day in window.days}
    report = Report(window=window, days=list(days.values()))
    _dialogs_per_day(bot, window, days)
    _interactions_per_day(bot, window, days)
    report.rewordings_offered, report.rewordings_clicked = _rewording_clicks(bot, window)
    report.top_items = _top_items(bot, window)
    report.longest_wait = _livechat_per_day(bot, window, days)
    return report


def counted_interactions(bot, window: Window):
    """The visitor's interactions of the period that analytics count: not in a qualification-mode dialog
    (the dialog's flag, as well as each interaction's), not an operator's message, not a live-chat notice
    (those have no input) and not a followed link (counted=False)."""
    return Interaction.objects.filter(
        bot=bot,
        counted=True,
        human=False,
        dialog__qualification_mode=False,
        created_at__gte=window.start,
        created_at__lt=window.end,
    ).exclude(user_input="")


def _per_day(queryset, field_name: str, window: Window):
    return queryset.annotate(day=TruncDate(field_name, tzinfo=window.tz)).values("day").order_by("day")


def _dialogs_per_day(bot, window: Window, days: dict[date, Day]) -> None:
    """Dialogs started each day, and how many of them ended each way (their qualification). Grouped by
    day and qualification: each dialog's qualification is computed once (filtered counts would repeat
    its subqueries for each count)."""
    dialogs = qualification.annotate(
        Dialog.objects.filter(
            bot=bot, qualification_mode=False, first_activity__gte=window.start, first_activity__lt=window.end
        )
    )
    rows = (
        dialogs.annotate(day=TruncDate("first_activity", tzinfo=window.tz))
        .values("day", "qualification")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in rows:
        day = days.get(row["day"])
        if day is None:
            continue
        day.dialogs += row["n"]
        field_name = QUALIFIED.get(row["qualification"])
        if field_name:
            setattr(day, field_name, getattr(day, field_name) + row["n"])


def _interactions_per_day(bot, window: Window, days: dict[date, Day]) -> None:
    # Rates count the questions the visitor typed; clicks (rewordings, links to items) have an origin.
    typed = Q(origin="")
    rows = _per_day(counted_interactions(bot, window), "created_at", window).annotate(
        interactions=Count("id"),
        understood=Count("id", filter=typed & Q(type_response__in=UNDERSTOOD)),
        reworded=Count("id", filter=typed & Q(type_response__in=REWORDED)),
        misunderstood=Count("id", filter=typed & Q(type_response__in=MISUNDERSTOOD)),
        positive=Count("id", filter=Q(feedback=Interaction.Feedback.POSITIVE)),
        negative=Count("id", filter=Q(feedback=Interaction.Feedback.NEGATIVE)),
    )
    for row in rows:
        day = days.get(row["day"])
        if day is not None:
            for name in ("interactions", "understood", "reworded", "misunderstood", "positive", "negative"):
                setattr(day, name, row[name])


def _rewording_clicks(bot, window: Window) -> tuple[int, int]:
    """Rewordings offered, and how many of them the visitor answered by clicking one: the dialog's next
    interaction after the offer is a rewording click."""
    following = Interaction.objects.filter(dialog=OuterRef("dialog")).filter(
        Q(created_at__gt=OuterRef("created_at")) | Q(created_at=OuterRef("created_at"), id__gt=OuterRef("id"))
    )
    offers = (
        counted_interactions(bot, window)
        .filter(origin="", type_response__in=REWORDED)
        .annotate(next_origin=Subquery(following.order_by("created_at", "id").values("origin")[:1]))
    )
    totals = offers.aggregate(offered=Count("id"), clicked=Count("id", filter=Q(next_origin=REWORD_CLICK)))
    return totals["offered"], totals["clicked"]


def _top_items(bot, window: Window) -> list[TopItem]:
    """The most used items (answers given, typed or clicked) with their feedback, counted by the item
    answered even when it has gone since (its kept id); named by their label, else their first formulation
    (one more query, for these items only), else, gone, by the title their interactions kept."""
    rows = list(
        counted_interactions(bot, window)
        .values(item=ANSWERED_ID)
        .filter(item__isnull=False)
        .annotate(
            uses=Count("id"),
            positive=Count("id", filter=Q(feedback=Interaction.Feedback.POSITIVE)),
            negative=Count("id", filter=Q(feedback=Interaction.Feedback.NEGATIVE)),
            # Still linked (the reference is NULL once the item is gone), its label, the title kept.
            linked=Max("knowledge_item_id"),
            label=Max("knowledge_item__label"),
            kept=Max("answered_title"),
        )
        .order_by("-uses", "item")[:TOP_ITEMS]
    )
    unnamed = [row["item"] for row in rows if row["linked"] and not row["label"]]
    first_formulation: dict[int, str] = {}
    if unnamed:
        for item_id, text in Formulation.objects.filter(item_id__in=unnamed).values_list("item_id", "text"):
            first_formulation.setdefault(item_id, text)
    return [
        TopItem(
            item_id=row["item"],
            name=row["label"] or first_formulation.get(row["item"]) or row["kept"] or f"#{row['item']}",
            uses=row["uses"],
            positive=row["positive"],
            negative=row["negative"],
            removed=not row["linked"],
        )
        for row in rows
    ]


def _livechat_per_day(bot, window: Window, days: dict[date, Day]) -> timedelta | None:
    """Requests for an operator per day, how many an operator took, and how long the visitors waited
    (from the request to the first assignment). Returns the longest wait of the period."""
    wait = ExpressionWrapper(F("assigned_at") - F("created_at"), output_field=DurationField())
    requests = LivechatRequest.objects.filter(
        bot=bot, dialog__qualification_mode=False, created_at__gte=window.start, created_at__lt=window.end
    )
    taken = Q(assigned_at__isnull=False)
    missed = {
        f"missed_{reason}": Count("id", filter=Q(assigned_at__isnull=True, end_reason=reason))
        for reason, _label in MISSED_REASONS
    }
    rows = _per_day(requests, "created_at", window).annotate(
        requests=Count("id"),
        taken=Count("id", filter=taken),
        waited=Sum(wait, filter=taken),
        longest=Max(wait, filter=taken),
        **missed,
    )
    longest = None
    for row in rows:
        day = days.get(row["day"])
        if day is None:
            continue
        day.livechat_requests, day.livechat_taken = row["requests"], row["taken"]
        day.livechat_wait = row["waited"] or timedelta(0)
        day.livechat_missed = {reason: row[f"missed_{reason}"] for reason, _label in MISSED_REASONS}
        if row["longest"] is not None and (longest is None or row["longest"] > longest):
            longest = row["longest"]
    return longest
