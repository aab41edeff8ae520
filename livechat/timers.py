"""Live chat's clocks, run every few seconds by each server process, or by `manage.py run_background` with
BACKGROUND_WORK "separate" (several at once safely: each change re-reads and locks its row first): consoles
that died, visitors whose chatbox was closed, visitors and operators who went silent, visitors nobody took,
and queued dialogs an operator can take now."""

import asyncio
import logging
import threading
from datetime import timedelta

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from bots.status import services
from dialogs.handover import Code
from knowledge.models import GlobalSentence

from . import assignment, delivery, locking, queue
from .models import VISITOR_GONE_MIN_SECONDS, LivechatRequest, LivechatSettings, Operator

log = logging.getLogger(__name__)
K = GlobalSentence.Kind
R = LivechatRequest.Status
W = LivechatRequest.Waiting


def sweep(now=None) -> dict:
    """One pass of every clock; returns what it did (for the logs and the tests)."""
    now = now or timezone.now()
    rules = _settings_by_bot()
    done = {
        "disconnected": disconnect_dead_consoles(now),
        "gone": drop_gone_visitors(rules, now),
        "warned": 0,
        "closed": 0,
        "transferred": 0,
        "timed_out_in_queue": 0,
        "assigned": 0,
    }
    for request in _live(W.VISITOR):
        rule = rules.get(request.bot_id) or LivechatSettings()
        silent = (now - request.waiting_since).total_seconds()
        if silent >= rule.visitor_timeout_seconds:
            done["closed"] += close_inactive(request.pk, now)
        elif silent >= rule.visitor_timeout_seconds - rule.visitor_warning_seconds and request.warned_at is None:
            done["warned"] += warn(request.pk, rule.visitor_timeout_seconds - int(silent), now)
    for request in _live(W.OPERATOR):
        rule = rules.get(request.bot_id) or LivechatSettings()
        if (now - request.waiting_since).total_seconds() >= rule.operator_timeout_seconds:
            done["transferred"] += transfer_from_silent(request.pk, now)
    accounts = set()
    for request in LivechatRequest.objects.filter(status=R.QUEUED).only("pk", "bot_id", "account_id", "queued_at"):
        rule = rules.get(request.bot_id) or LivechatSettings()
        if (now - request.queued_at).total_seconds() >= rule.queue_timeout_seconds:
            done["timed_out_in_queue"] += time_out_in_queue(request.pk, now)
        accounts.add(request.account_id)
    for account_id in accounts:
        done["assigned"] += assignment.dispatch(account_id, now, quiet=True)
    return done


def _settings_by_bot() -> dict[int, LivechatSettings]:
    return {rule.bot_id: rule for rule in LivechatSettings.objects.all()}


def _live(waiting_on: str):
    return LivechatRequest.objects.filter(status=R.ASSIGNED, waiting_on=waiting_on).only(
        "pk", "bot_id", "waiting_since", "warned_at"
    )


def _locked(pk: int, **still):
    """The request, locked, if it is still in the state the clock saw (another process may have acted).
    Its account's lock comes first, as for every change of the queue or slots (a request never changes
    account: its account is read before any lock)."""
    account_id = LivechatRequest.objects.filter(pk=pk).values_list("account_id", flat=True).first()
    if account_id is None:
        return None
    locking.hold_account(account_id)
    return (
        LivechatRequest.objects.select_for_update(of=("self",))
        .filter(pk=pk, **still)
        .select_related("dialog__bot", "operator__user", "competency")
        .first()
    )


def disconnect_dead_consoles(now) -> int:
    """Operators whose console stopped refreshing its presence are offline; their visitors are told
    (OperatorDisconnected) and go to another operator or back to the queue."""
    count = 0
    stale = Operator.objects.exclude(status=Operator.Status.OFFLINE).filter(last_seen_at__lt=queue.alive_since(now))
    for operator in stale.select_related("user"):
        gone = Operator.objects.filter(pk=operator.pk, last_seen_at=operator.last_seen_at).exclude(
            status=Operator.Status.OFFLINE
        )
        if gone.update(status=Operator.Status.OFFLINE, status_changed_at=now):
            operator.status = Operator.Status.OFFLINE
            assignment.hand_back(operator, now)
            queue.announce_operator(operator.pk)  # the team sees them offline, even if they held nothing
            log.info("Operator %s went offline: their console stopped answering", operator.pk)
            count += 1
    return count


def drop_gone_visitors(rules: dict[int, LivechatSettings], now) -> int:
    """Queued or live visitors whose chatbox neither polled nor held its socket for their bot's grace time
    (visitor_gone_seconds; 0: never) closed it: each leaves, see visitor_gone."""
    count = 0
    silent = LivechatRequest.objects.filter(
        status__in=[R.QUEUED, R.ASSIGNED], visitor_seen_at__lt=now - timedelta(seconds=VISITOR_GONE_MIN_SECONDS)
    ).only("pk", "bot_id", "visitor_seen_at")
    for request in silent:
        grace = (rules.get(request.bot_id) or LivechatSettings()).visitor_gone_seconds
        if grace and (now - request.visitor_seen_at).total_seconds() >= grace:
            count += visitor_gone(request.pk, request.visitor_seen_at, now)
    return count


def visitor_gone(pk: int, seen_at, now) -> int:
    """The visitor closed their chatbox (last seen at `seen_at`). Queued: they leave the queue; live: the
    dialog ends as "visitor left". Their chatbox is sent the notice (which it gets if it comes back:
    visitors.came_back), the operator or every console of the account is told, and the transcript keeps
    the line. 0 when another process acted first, or the visitor was seen since."""
    with transaction.atomic():
        request = _locked(pk, status__in=[R.QUEUED, R.ASSIGNED], visitor_seen_at=seen_at)
        if request is None:
            return 0
        queued = request.status == R.QUEUED
        kind = K.LIVECHAT_LEFT_QUEUE if queued else K.LIVECHAT_AUTO_CLOSE
        reason = LivechatRequest.EndReason.VISITOR_GONE
        assignment.end(request, reason, now, type_response=Code.AUTO_CLOSE_USER_LEFT, kind=kind)
        if queued:
            # Nobody held it: every console of the account hears that this waiting visitor left.
            text = assignment.sentence(request.dialog, kind)
            delivery.to_account(request.account_id, {"type": "ended", "dialog": pk, "reason": reason, "text": text})
    log.info(
        "Live chat: the visitor of dialog %s closed their chatbox (%s)",
        request.dialog_id,
        "queued" if queued else "live",
    )
    return 1


def warn(pk: int, seconds_left: int, now) -> int:
    with transaction.atomic():
        request = _locked(pk, status=R.ASSIGNED, waiting_on=W.VISITOR, warned_at=None)
        if request is None:
            return 0
        request.warned_at = now
        request.save(update_fields=["warned_at"])
        text = assignment.sentence(request.dialog, K.LIVECHAT_ALMOST_TIMED_OUT, seconds=max(1, seconds_left))
        delivery.to_visitor(request, "notification", {"code": Code.ALMOST_TIMED_OUT, "text": text}, now)
        delivery.to_operator(request.operator_id, {"type": "warned", "dialog": request.pk, "text": text})
    return 1


def close_inactive(pk: int, now) -> int:
    with transaction.atomic():
        request = _locked(pk, status=R.ASSIGNED, waiting_on=W.VISITOR)
        if request is None:
            return 0
        assignment.end(
            request,
            LivechatRequest.EndReason.VISITOR_INACTIVE,
            now,
            type_response=Code.AUTO_CLOSE,
            kind=K.LIVECHAT_AUTO_CLOSE,
        )
    return 1


def transfer_from_silent(pk: int, now) -> int:
    """The visitor waits on a silent operator: another operator with room takes the dialog."""
    with transaction.atomic():
        request = _locked(pk, status=R.ASSIGNED, waiting_on=W.OPERATOR)
        if request is None:
            return 0
        other = queue.claim_operator(request.account_id, request.competency, now, exclude=[request.operator_id])
        if other is None:
            # Nobody else can take it: the operator's console flags the dialog as late instead.
            request.waiting_since = now
            request.save(update_fields=["waiting_since"])
            delivery.to_operator(request.operator_id, {"type": "late", "dialog": request.pk})
            return 0
        assignment.transfer(request, other, now, code=Code.TRANSFERRED_AUTOMATICALLY)
    return 1


def time_out_in_queue(pk: int, now) -> int:
    with transaction.atomic():
        request = _locked(pk, status=R.QUEUED)
        if request is None:
            return 0
        assignment.end(
            request,
            LivechatRequest.EndReason.QUEUE_TIMEOUT,
            now,
            type_response=Code.AUTO_CLOSE,
            kind=K.LIVECHAT_NO_OPERATOR,
        )
    return 1


# ------------------------------------------------------------------ running the clocks in a server process

_started = False


def ensure_running() -> None:
    """Start this process's clock task once, on the running event loop (a daphne process)."""
    global _started
    interval = settings.LIVECHAT_TIMER_SECONDS
    if _started or interval <= 0:
        return
    _started = True
    asyncio.get_running_loop().create_task(_run(interval))


async def _run(interval: float):
    while True:
        await asyncio.sleep(interval)
        # While the database is known to be down there is nothing to sweep (its watch logs the outage);
        # the clocks resume by themselves when it answers again.
        if services.database_down():
            continue
        await database_sync_to_async(_pass)(interval)


def _pass(interval: float) -> None:
    try:
        sweep()
    except Exception as error:  # a failing pass must not stop the clocks
        if services.database.failed(error):
            return  # the database went down under this pass: the watch takes over from here
        log.exception("Live chat's timers failed; trying again in %s s", interval)


def run_clocks(stop: threading.Event) -> None:
    """The clocks in a process of their own (manage.py run_background): a pass every LIVECHAT_TIMER_SECONDS
    until `stop` is set; a pass under way finishes first (each change is its own short transaction)."""
    interval = settings.LIVECHAT_TIMER_SECONDS
    if interval <= 0:
        return
    try:
        while not stop.wait(interval):
            if services.database_down():
                continue
            close_old_connections()
            _pass(interval)
    finally:
        connection.close()


def with_timers(application):
    """ASGI middleware: the first connection a server process gets starts its live-chat clocks, unless
    they run in a process of their own (BACKGROUND_WORK "separate")."""

    async def app(scope, receive, send):
        if scope["type"] in ("http", "websocket") and settings.BACKGROUND_WORK == "in-process":
            ensure_running()
        return await application(scope, receive, send)

    return app
