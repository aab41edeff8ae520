"""Routing: which operator takes a dialog, the waiting queue's room, order, positions and waiting
estimates. Claiming an operator's slot is one conditional UPDATE, so several server processes never
give one operator more dialogs than their limit."""

import math
from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q, Sum
from django.utils import timezone

from accounts.models import Competency

from . import delivery, panel
from .models import LivechatRequest, LivechatSettings, Operator

# Until an account has ended live dialogs to learn from, a dialog is assumed to take this long.
DEFAULT_HANDLING_SECONDS = 240
HANDLING_SAMPLE = 50


def settings_for(bot) -> LivechatSettings:
    """The bot's live-chat settings, or the defaults (unsaved) when it has none."""
    found = LivechatSettings.objects.filter(bot=bot).first()
    return found or LivechatSettings(bot=bot)


def alive_since(now=None):
    """Consoles that refreshed their presence after this are open."""
    return (now or timezone.now()) - timedelta(seconds=settings.LIVECHAT_OPERATOR_GRACE_SECONDS)


def online_operators(account_id: int, competency: Competency | None = None, now=None):
    """Operators of the account who take dialogs now: available, with an open console."""
    operators = Operator.objects.filter(
        account_id=account_id, status=Operator.Status.AVAILABLE, last_seen_at__gte=alive_since(now)
    )
    if competency is not None:
        operators = operators.filter(competencies=competency)
    return operators


def find_competency(account_id: int, name: str) -> Competency | None:
    if not name:
        return None
    return Competency.objects.filter(account_id=account_id, name__iexact=name.strip()).first()


def claim_operator(account_id: int, competency: Competency | None, now=None, exclude=()) -> Operator | None:
    """Take a slot of the least busy online operator who can serve; None when nobody has room."""
    now = now or timezone.now()
    candidates = (
        online_operators(account_id, competency, now)
        .exclude(pk__in=list(exclude))
        .filter(active_dialogs__lt=F("max_dialogs"))
        .order_by("active_dialogs", F("last_assigned_at").asc(nulls_first=True), "pk")
    )
    for operator in candidates.select_related("user")[:20]:
        claimed = Operator.objects.filter(
            pk=operator.pk, status=Operator.Status.AVAILABLE, active_dialogs__lt=F("max_dialogs")
        ).update(active_dialogs=F("active_dialogs") + 1, last_assigned_at=now)
        if claimed:
            operator.active_dialogs += 1
            operator.last_assigned_at = now
            announce_operator(operator.pk)
            return operator
    return None


def claim_slot(operator: Operator, now=None) -> bool:
    """Take a slot of this operator (a transfer to them, or a dialog they take from the queue)."""
    claimed = Operator.objects.filter(pk=operator.pk, active_dialogs__lt=F("max_dialogs")).update(
        active_dialogs=F("active_dialogs") + 1, last_assigned_at=now or timezone.now()
    )
    if claimed:
        announce_operator(operator.pk)
    return bool(claimed)


def release_slot(operator_id: int | None):
    if operator_id:
        Operator.objects.filter(pk=operator_id, active_dialogs__gt=0).update(active_dialogs=F("active_dialogs") - 1)
        announce_operator(operator_id)


def announce_operator(operator_id: int):
    """Every console of the account sees the operator as they are now: load, availability, competencies."""
    operator = Operator.objects.select_related("user").prefetch_related("competencies").get(pk=operator_id)
    delivery.to_account(operator.account_id, {"type": "operator", "operator": panel.operator_card(operator)})


def queue_room(account_id: int, per_operator: int, competency: Competency | None, now=None) -> bool:
    """The queue holds `per_operator` visitors per online operator who could serve them."""
    if per_operator <= 0:
        return False
    serving = online_operators(account_id, competency, now).count()
    waiting = LivechatRequest.objects.filter(account_id=account_id, status=LivechatRequest.Status.QUEUED).count()
    return waiting < serving * per_operator


def anyone_can_serve(account_id: int, competency: Competency | None, now=None) -> bool:
    return online_operators(account_id, competency, now).exists()


def queued(account_id: int):
    """The account's waiting queue, first come first served (a requeued dialog keeps its place)."""
    return (
        LivechatRequest.objects.filter(account_id=account_id, status=LivechatRequest.Status.QUEUED)
        .select_related("dialog", "competency", "bot")
        .order_by("queued_at", "pk")
    )


def position(request: LivechatRequest) -> int:
    """1 for the first in the queue."""
    ahead = LivechatRequest.objects.filter(account_id=request.account_id, status=LivechatRequest.Status.QUEUED).filter(
        Q(queued_at__lt=request.queued_at) | Q(queued_at=request.queued_at, pk__lt=request.pk)
    )
    return ahead.count() + 1


def wait_estimator(account_id: int, now=None):
    """place → about how long the visitor at that place waits (seconds): each operator frees a slot
    every average handling time divided by their number of slots."""
    recent = (
        LivechatRequest.objects.filter(
            account_id=account_id, status=LivechatRequest.Status.ENDED, assigned_at__isnull=False
        )
        .order_by("-ended_at")
        .values_list("assigned_at", "ended_at")[:HANDLING_SAMPLE]
    )
    durations = [(ended - assigned).total_seconds() for assigned, ended in recent if ended and assigned]
    handling = sum(durations) / len(durations) if durations else DEFAULT_HANDLING_SECONDS
    slots = online_operators(account_id, now=now).aggregate(slots=Sum("max_dialogs"))["slots"] or 0
    return lambda place: math.ceil(place * handling / max(1, slots))
