"""Operators' presence: who may operate, their availability (available, busy, away, offline) and the
console's heartbeat that keeps "available" honest."""

from django.db import transaction
from django.utils import timezone

from accounts.models import Role
from accounts.permissions import account_of, role_of
from bots.servlet.errors import Forbidden, InvalidField

from . import assignment, delivery, hours, locking, panel, queue
from .layer_health import health
from .models import MAX_DIALOGS_LIMIT, Operator

OPERATING_ROLES = {Role.OPERATOR, Role.ADMINISTRATOR}
STATUSES = {choice.value for choice in Operator.Status}


def may_operate(user) -> bool:
    return bool(user and user.is_active and account_of(user) is not None and role_of(user) in OPERATING_ROLES)


def operator_for(user) -> Operator:
    """The user's operator profile, made on first use; 403 for a user who may not answer visitors."""
    if not may_operate(user):
        raise Forbidden(
            "Only operators and administrators of an account answer visitors in live chat.", code="NOT_AN_OPERATOR"
        )
    operator = Operator.objects.filter(user=user).select_related("user").first()
    if operator is None:
        operator, _ = Operator.objects.get_or_create(user=user, defaults={"account": account_of(user)})
    return operator


def is_online(operator: Operator, now=None) -> bool:
    seen = operator.last_seen_at
    return operator.status != Operator.Status.OFFLINE and seen is not None and seen >= queue.alive_since(now)


def heartbeat(operator: Operator, now=None) -> None:
    """The console is open: the operator counts as connected for the grace period."""
    now = now or timezone.now()
    Operator.objects.filter(pk=operator.pk).update(last_seen_at=now)
    operator.last_seen_at = now


def set_status(operator: Operator, status: str, now=None) -> Operator:
    """Change the operator's availability. Becoming available takes waiting dialogs; going offline
    hands the operator's dialogs to others (or back to the queue)."""
    if status not in STATUSES:
        raise InvalidField("status", f"must be one of {', '.join(sorted(STATUSES))}")
    now = now or timezone.now()
    with transaction.atomic():
        locking.hold_account(operator.account_id)  # who serves decides the queue's room
        Operator.objects.filter(pk=operator.pk).update(status=status, status_changed_at=now)
        operator.status = status
        operator.status_changed_at = now
        if status == Operator.Status.OFFLINE:
            assignment.hand_back(operator, now)
            operator.refresh_from_db(fields=["active_dialogs"])  # the dialogs handed back freed its slots
        delivery.to_account(operator.account_id, {"type": "operator", "operator": panel.operator_card(operator, now)})
    if status == Operator.Status.AVAILABLE:
        assignment.dispatch(operator.account_id, now)
    return operator


def set_max_dialogs(operator: Operator, limit: int) -> None:
    """How many dialogs the operator holds at once (1 to 10); dialogs already held are kept."""
    if not 1 <= limit <= MAX_DIALOGS_LIMIT:
        raise InvalidField("maxDialogs", f"must be between 1 and {MAX_DIALOGS_LIMIT}")
    Operator.objects.filter(pk=operator.pk).update(max_dialogs=limit)
    operator.max_dialogs = limit
    queue.announce_operator(operator.pk)
    if operator.has_room:
        assignment.dispatch(operator.account_id)


def card(operator: Operator, now=None) -> dict:
    return panel.operator_card(operator, now)


def by_competency(account_id: int, now=None) -> dict:
    """For each competency of the account (and "*" for any): operators online, and those with room."""
    from accounts.models import Competency

    online = list(queue.online_operators(account_id, now=now).prefetch_related("competencies"))
    counts = {"*": {"online": len(online), "withRoom": sum(op.has_room for op in online)}}
    for name in Competency.objects.filter(account_id=account_id).values_list("name", flat=True):
        able = [op for op in online if any(c.name == name for c in op.competencies.all())]
        counts[name] = {"online": len(able), "withRoom": sum(op.has_room for op in able)}
    return counts


def bot_availability(bot, now=None) -> dict:
    """Whether a visitor of this bot can reach a human now (a chatbox may hide its button if not)."""
    from .models import LivechatRequest

    rules = queue.settings_for(bot)
    if not rules.enabled or bot.account_id is None:
        return {"available": False, "enabled": rules.enabled, "byCompetency": {}, "queue": 0}
    counts = by_competency(bot.account_id, now)
    waiting = LivechatRequest.objects.filter(account_id=bot.account_id, status=LivechatRequest.Status.QUEUED).count()
    # While the channel layer is down, or outside the team's opening hours, a handover is refused
    # (handover.py): nobody is reachable.
    is_open = hours.open_now(bot.account_id, None, now or timezone.now())
    available = counts["*"]["online"] > 0 and health.usable() and is_open
    return {"available": available, "enabled": True, "open": is_open, "byCompetency": counts, "queue": waiting}
