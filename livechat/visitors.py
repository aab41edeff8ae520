"""Whether a visitor in live chat is still there. Their chatbox says so by polling, by holding its websocket
and by writing; that is recorded on the open request at most once per SEEN_WRITE_SECONDS per dialog and
server process (not a write per poll). The clocks (timers.py) drop a visitor silent for the bot's grace
time; one whose chatbox comes back while the dialog is alive is queued again, at the end of the queue."""

import time

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from dialogs.contexts import still_active
from dialogs.handover import Code
from dialogs.models import Dialog, Interaction

from . import assignment, delivery, hours, locking, queue
from .layer_health import health
from .models import LivechatEvent, LivechatRequest

R = LivechatRequest.Status
OPEN = (R.QUEUED, R.ASSIGNED)
# At most one write of a dialog's presence per process in this time; the shortest grace time allowed
# (models.VISITOR_GONE_MIN_SECONDS, 30 s) leaves room for two of them and a late poll.
SEEN_WRITE_SECONDS = 10.0
# How often an open chatbox websocket in live chat says its visitor is there (a write when one is due).
SOCKET_BEAT_SECONDS = 5.0
_REMEMBERED_MAX = 10_000

# dialog uuid (str) → time.monotonic() of this process's last write of its presence
_written: dict[str, float] = {}


def due(dialog_uuid) -> bool:
    """Whether this process should write the dialog's presence now (it did not in SEEN_WRITE_SECONDS)."""
    last = _written.get(str(dialog_uuid))
    return last is None or time.monotonic() - last >= SEEN_WRITE_SECONDS


def seen(dialog_uuid, now=None) -> bool:
    """The visitor of this dialog is there. Returns False when the dialog holds no open request (as far as
    a write just now knows; a write skipped because one was made lately counts as True)."""
    key = str(dialog_uuid)
    if not due(key):
        return True
    _remember(key)
    updated = LivechatRequest.objects.filter(dialog__uuid=key, status__in=OPEN).update(
        visitor_seen_at=now or timezone.now()
    )
    return bool(updated)


def _remember(key: str) -> None:
    if len(_written) >= _REMEMBERED_MAX:
        stale = time.monotonic() - SEEN_WRITE_SECONDS
        for old in [k for k, at in _written.items() if at < stale]:
            del _written[old]
    _written[key] = time.monotonic()


def forget(dialog_uuid) -> None:
    """The next `seen` of this dialog writes (a new request: the last write was for an older one)."""
    _written.pop(str(dialog_uuid), None)


def here(dialog: Dialog, now=None, *, last_poll_ms: int | None = None) -> bool:
    """The chatbox of a dialog in live chat asks for news (a poll, or a socket's context check): its
    visitor is there, and one dropped while away is queued again. Returns whether live chat holds the
    dialog now. `last_poll_ms`: the newest event the chatbox has (a poll's lastPoll)."""
    now = now or timezone.now()
    if seen(dialog.uuid, now):
        return True
    return came_back(dialog, now, last_poll_ms=last_poll_ms)


def came_back(dialog: Dialog, now, *, last_poll_ms: int | None = None) -> bool:
    """A visitor dropped for being away (VISITOR_GONE) whose chatbox is back, in a dialog still alive and
    not talked in since, is queued again at the end of the queue; the undelivered notice of the drop is
    withdrawn. Nobody to queue for (no operator, closed, queue full): the chatbox gets that notice and
    leaves live chat. Once per drop."""
    dropped = (
        LivechatRequest.objects.filter(dialog=dialog)
        .order_by("-created_at", "-pk")
        .only("pk", "end_reason", "visitor_seen_at", "ended_at", "account_id")
        .first()
    )
    if dropped is None or dropped.end_reason != LivechatRequest.EndReason.VISITOR_GONE:
        return False
    if dropped.visitor_seen_at and dropped.ended_at and dropped.visitor_seen_at >= dropped.ended_at:
        return False  # came back already
    if still_active(dialog, now) is None:
        return False  # the dialog's life is over (its context was revoked)
    notices = LivechatEvent.objects.filter(request_id=dropped.pk, code=Code.AUTO_CLOSE_USER_LEFT)
    if last_poll_ms is not None and notices.filter(at_ms__lte=last_poll_ms).exists():
        return False  # the chatbox showed the drop: its visitor knows they are back with the bot
    if Interaction.objects.filter(dialog=dialog, created_at__gt=dropped.ended_at).exclude(user_input="").exists():
        return False  # they talked with the bot since: back with it, knowingly
    return _queue_again(dialog, dropped.pk, dropped.account_id, now)


def _queue_again(dialog: Dialog, dropped_pk: int, account_id: int, now) -> bool:
    with transaction.atomic():
        locking.hold_account(account_id)
        # Marked back first, under the account's lock: two polls at once queue the visitor once.
        marked = LivechatRequest.objects.filter(
            pk=dropped_pk, end_reason=LivechatRequest.EndReason.VISITOR_GONE, visitor_seen_at__lt=F("ended_at")
        ).update(visitor_seen_at=now)
        if not marked or LivechatRequest.objects.filter(dialog=dialog, status__in=OPEN).exists():
            return False
        dropped = LivechatRequest.objects.select_related("competency").get(pk=dropped_pk)
        if not _someone_can_serve(dialog, dropped, now):
            return False
        LivechatEvent.objects.filter(request_id=dropped_pk, code=Code.AUTO_CLOSE_USER_LEFT).delete()
        request = assignment.join_queue(dialog, dropped.account_id, dropped.competency, now)
        forget(dialog.uuid)
        place = request.queue_position
        values = assignment.queue_values(dialog, place, queue.wait_estimator(dropped.account_id, now)(place))
        event = delivery.to_visitor(request, "notification", values, now)
        # A reload shows the visitor waiting again; the operators' transcript shows they came back.
        assignment.record(dialog, values["text"], Code.WAITING_FOR_OPERATOR, now, event=event)
        assignment.dispatch(dropped.account_id, now)
    return True


def _someone_can_serve(dialog: Dialog, dropped: LivechatRequest, now) -> bool:
    rules = queue.settings_for(dialog.bot)
    return (
        rules.enabled
        and health.usable()
        and hours.open_now(dropped.account_id, dropped.competency, now)
        and queue.anyone_can_serve(dropped.account_id, dropped.competency, now)
        and queue.queue_room(dropped.account_id, rules.queue_per_operator, dropped.competency, now)
    )
