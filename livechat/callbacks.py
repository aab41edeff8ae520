"""Callbacks: a visitor or a telephony integration asks to be called back; operators see them in the
console, take one (so nobody else calls) and close it with what came of it."""

import re

from django.db import transaction
from django.utils import timezone

from accounts.lockout import client_address
from bots.servlet.errors import Forbidden, InvalidField, MissingField, NotFound, TooManyRequests
from bots.status.services import FallbackCache

from . import delivery
from .models import Callback, Operator
from .operating import Conflict

# An international or national phone number: digits with the usual separators, 6 to 15 digits.
PHONE = re.compile(r"^\+?[0-9 ().\-/]{6,24}$")
OPEN_LISTED = 100
ANONYMOUS_PER_WINDOW = 5
ANONYMOUS_WINDOW_SECONDS = 600
# The shared cache, or this process's memory while it is unreachable (callbacks stay limited, not 503).
cache = FallbackCache("the callback limit")


def limit_anonymous(request, bot) -> None:
    """A chatbox (no credentials) may ask a few callbacks per address and bot, not flood the console."""
    address = client_address(request) or "unknown"
    key = f"livechat:callbacks:{bot.uuid}:{address}"
    try:
        cache.add(key, 0, ANONYMOUS_WINDOW_SECONDS)
        count = cache.incr(key)
    except ValueError:  # the key expired between add and incr
        count = 1
    if count > ANONYMOUS_PER_WINDOW:
        raise TooManyRequests(
            f"At most {ANONYMOUS_PER_WINDOW} callback requests per {ANONYMOUS_WINDOW_SECONDS // 60} minutes.",
            code="TOO_MANY_CALLBACKS",
        )


def clean_phone(value: str) -> str:
    phone = " ".join((value or "").split())
    if not phone:
        raise MissingField("phone")
    digits = re.sub(r"\D", "", phone)
    if not PHONE.match(phone) or not 6 <= len(digits) <= 15:
        raise InvalidField("phone", "not a phone number (6 to 15 digits, optionally starting with +)")
    return phone


def request_callback(
    bot, *, phone: str, name="", preferred_time="", reason="", language="", source="chatbox", dialog=None
) -> Callback:
    callback = Callback.objects.create(
        bot=bot,
        dialog=dialog,
        phone=clean_phone(phone),
        name=name.strip()[:100],
        preferred_time=preferred_time.strip()[:100],
        reason=reason.strip()[:2000],
        language=language[:8],
        source=source,
    )
    if bot.account_id:
        delivery.to_account(bot.account_id, {"type": "callbacks", "callbacks": listing(bot.account_id)})
    return callback


def summary(callback: Callback) -> dict:
    return {
        "id": callback.pk,
        "bot": callback.bot.name,
        "botUUID": str(callback.bot.uuid),
        "contextId": str(callback.dialog.uuid) if callback.dialog_id else None,
        "phone": callback.phone,
        "name": callback.name,
        "preferredTime": callback.preferred_time,
        "reason": callback.reason,
        "language": callback.language,
        "source": callback.source,
        "status": callback.status,
        "operator": callback.operator.name if callback.operator_id else None,
        "operatorLogin": callback.operator.user.get_username() if callback.operator_id else None,
        "outcome": callback.outcome,
        "createdAt": callback.created_at.isoformat(),
        "takenAt": callback.taken_at.isoformat() if callback.taken_at else None,
        "closedAt": callback.closed_at.isoformat() if callback.closed_at else None,
    }


def listing(account_id: int, status: str | None = None, bot=None) -> list[dict]:
    """The account's (or one bot's) callbacks still to handle (open and taken), oldest first."""
    rows = Callback.objects.filter(bot__account_id=account_id).select_related("bot", "dialog", "operator__user")
    if bot is not None:
        rows = rows.filter(bot=bot)
    if status:
        if status not in Callback.Status.values:
            raise InvalidField("status", f"one of {', '.join(Callback.Status.values)}")
        rows = rows.filter(status=status)
    else:
        rows = rows.exclude(status=Callback.Status.CLOSED)
    return [summary(callback) for callback in rows.order_by("created_at", "pk")[:OPEN_LISTED]]


def act(operator: Operator, callback_id, what: str, outcome: str = "", bot=None) -> dict:
    """take: the operator will call; close: done (an outcome may be noted). Changes nothing when refused."""
    try:
        pk = int(callback_id)
    except (TypeError, ValueError):
        raise InvalidField("id", "not a callback id") from None
    now = timezone.now()
    with transaction.atomic():
        rows = Callback.objects.filter(pk=pk, bot__account_id=operator.account_id)
        if bot is not None:
            rows = rows.filter(bot=bot)
        callback = rows.select_for_update(of=("self",)).select_related("bot", "dialog", "operator__user").first()
        if callback is None:
            raise NotFound(f"No callback {pk} in your account.", code="UNKNOWN_CALLBACK")
        if what == "take":
            if callback.status != Callback.Status.OPEN:
                raise Conflict("This callback is taken or closed already.", code="CALLBACK_NOT_OPEN")
            callback.status, callback.operator, callback.taken_at = Callback.Status.TAKEN, operator, now
        elif what == "close":
            if callback.status == Callback.Status.CLOSED:
                raise Conflict("This callback is closed already.", code="CALLBACK_CLOSED")
            if callback.status == Callback.Status.TAKEN and callback.operator_id != operator.pk:
                raise Forbidden("Another operator took this callback.", code="NOT_YOUR_CALLBACK")
            callback.status, callback.closed_at = Callback.Status.CLOSED, now
            callback.operator = callback.operator or operator
            callback.outcome = outcome.strip()[:2000]
        else:
            raise InvalidField("do", "take or close")
        callback.save()
        delivery.to_account(operator.account_id, {"type": "callbacks", "callbacks": listing(operator.account_id)})
    return summary(callback)
