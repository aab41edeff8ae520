"""The life of a live-chat request, shared by the visitor's side, the operators' side and the timers:
open, assign, send back to the queue, end; and the queue moving when a slot frees up.

Every transition stores what changed (request, dialog, interaction, events) in one transaction and
pushes the news after it commits. A transition of the queue or of operators' slots holds the account's
live-chat lock (livechat.locking) from before it reads any of them to that commit.
"""

from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone

from dialogs.handover import Code
from dialogs.models import Dialog, Interaction
from knowledge.models import GlobalSentence
from knowledge.sentences import fill, global_sentence
from knowledge.snapshot import snapshot_for

from . import delivery, locking, panel, queue, watching
from .layer_health import health
from .models import LivechatRequest, Operator
from .names import shown_name
from .notices import OPERATOR_NAME

K = GlobalSentence.Kind
R = LivechatRequest.Status


def sentence(dialog: Dialog, kind: str, **values) -> str:
    """A live-chat global sentence of the dialog's bot, in the dialog's language, filled in."""
    return fill(global_sentence(snapshot_for(dialog.bot).sentences, dialog.language, kind), **values)


def open_request(dialog: Dialog, account_id: int, competency, now, *, queued_at=None, place=None) -> LivechatRequest:
    request = LivechatRequest.objects.create(
        dialog=dialog,
        bot_id=dialog.bot_id,
        account_id=account_id,
        competency=competency,
        status=R.QUEUED,
        created_at=now,
        queued_at=queued_at or now,
        queue_position=place,
        waiting_on=LivechatRequest.Waiting.OPERATOR,
        waiting_since=now,
        visitor_seen_at=now,  # the talk that asked is the visitor being there
        # Events of this request come after the talk that opened it (the poll starts from its serverTime).
        last_event_ms=delivery.epoch_ms(now),
    )
    request.dialog = dialog
    return request


def join_queue(dialog: Dialog, account_id: int, competency, now) -> LivechatRequest:
    """A new request at the end of the account's queue, its place stored (the caller holds the account's
    lock and found room). Its talk may have started before the talk of the last one waiting, which took
    the lock first: it is queued no earlier than that one, so its place is after everyone waiting."""
    waiting = LivechatRequest.objects.filter(account_id=account_id, status=R.QUEUED).aggregate(
        count=Count("pk"), last=Max("queued_at")
    )
    queued_at = max(now, waiting["last"] or now)
    request = open_request(dialog, account_id, competency, now, queued_at=queued_at, place=waiting["count"] + 1)
    set_dialog_livechat(dialog, Dialog.Livechat.QUEUED)
    return request


def held_request_of(dialog: Dialog) -> LivechatRequest | None:
    """The dialog's open request, locked, for a change of the queue or slots: its account's lock is
    taken first (an account's lock always comes before its rows' locks)."""
    account_id = (
        LivechatRequest.objects.filter(dialog=dialog, status__in=[R.QUEUED, R.ASSIGNED])
        .values_list("account_id", flat=True)
        .first()
    )
    if account_id is None:
        return None
    locking.hold_account(account_id)
    return open_request_of(dialog, lock=True)


def open_request_of(dialog: Dialog, *, lock: bool = False) -> LivechatRequest | None:
    requests = LivechatRequest.objects.filter(dialog=dialog, status__in=[R.QUEUED, R.ASSIGNED])
    if lock:
        requests = requests.select_for_update(of=("self",))
    request = requests.select_related("operator__user", "competency").first()
    if request is not None:
        request.dialog = dialog
    return request


def touch(dialog: Dialog, now):
    """Live chat keeps the dialog's context alive (it is never revoked while a human holds it)."""
    Dialog.objects.filter(pk=dialog.pk).update(last_activity=now)
    dialog.last_activity = now


def set_dialog_livechat(dialog: Dialog, value: str, now=None):
    fields = {"livechat": value}
    if now is not None:
        fields["last_activity"] = now
        dialog.last_activity = now
    Dialog.objects.filter(pk=dialog.pk).update(**fields)
    dialog.livechat = value


def assign(request: LivechatRequest, operator: Operator, now, *, from_queue: bool, sound: bool = True) -> None:
    """The operator (whose slot is claimed already) takes the dialog; their console rings unless they
    took it themselves."""
    request.status = R.ASSIGNED
    request.operator = operator
    request.assigned_at = request.assigned_at or now
    request.waiting_on = LivechatRequest.Waiting.OPERATOR
    request.waiting_since = now
    request.warned_at = None
    request.joined_at = None
    request.save(
        update_fields=["status", "operator", "assigned_at", "waiting_on", "waiting_since", "warned_at", "joined_at"]
    )
    dialog = request.dialog
    set_dialog_livechat(dialog, Dialog.Livechat.OPERATOR, now)
    if from_queue:
        name = shown_name(operator, dialog)
        text = sentence(dialog, K.LIVECHAT_CONNECTED, operator=name)
        event = delivery.to_visitor(
            request,
            "notification",
            {"code": Code.ADDED_TO_OPERATOR_PANEL, "text": text, OPERATOR_NAME: name},
            now,
        )
        # In the history the chatbox replays on reload, this is where live chat started.
        line = record(dialog, text, Code.CONNECTION_SUCCEED, now, event=event, payload={OPERATOR_NAME: name})
        delivery.to_operator(operator.pk, {"type": "message", "dialog": request.pk, "message": panel.message(line)})
    delivery.to_operator(operator.pk, {"type": "dialog", "dialog": panel.card(request), "sound": sound})


def requeue(request: LivechatRequest, now, *, event) -> None:
    """Back to the queue at its old place (its operator left, after `event` told the visitor why); the
    next announcement tells the visitor where they stand. The caller holds the account's lock."""
    request.status = R.QUEUED
    request.operator = None
    request.waiting_on = LivechatRequest.Waiting.OPERATOR
    request.waiting_since = now
    request.queue_position = None  # the next announcement tells the visitor their place
    request.save(update_fields=["status", "operator", "waiting_on", "waiting_since", "queue_position"])
    set_dialog_livechat(request.dialog, Dialog.Livechat.QUEUED, now)
    # A chatbox that reloads its history sees it is waiting again, not with the operator who left.
    line = record(request.dialog, event.values["text"], Code.WAITING_FOR_OPERATOR, now, event=event)
    delivery.to_account(request.account_id, {"type": "message", "dialog": request.pk, "message": panel.message(line)})


def end(request: LivechatRequest, reason: str, now, *, type_response: str, kind: str, code: str = "") -> None:
    """The live chat is over: the visitor gets the closing sentence and is back with the bot. The caller
    holds the account's lock (taken before it locked `request`)."""
    operator = request.operator
    request.status = R.ENDED
    request.ended_at = now
    request.end_reason = reason
    request.save(update_fields=["status", "ended_at", "end_reason"])
    dialog = request.dialog
    set_dialog_livechat(dialog, Dialog.Livechat.BOT, now)
    text = sentence(dialog, kind, operator=shown_name(operator, dialog) if operator else "")
    values = {"code": code or type_response, "text": text, "typeResponse": type_response}
    if type_response == Code.LEAVE_QUEUE:
        values["specialAction"] = Code.END_POLLING
    event = delivery.to_visitor(request, "notification", values, now)
    line = None
    if type_response != Code.LEAVE_QUEUE:  # the talk that left the queue is in the history already
        line = panel.message(record(dialog, text, type_response, now, event=event))
    if operator is not None:
        queue.release_slot(operator.pk)
        ended = {"type": "ended", "dialog": request.pk, "reason": reason, "text": text, "line": line}
        delivery.to_operator(operator.pk, ended)
        dispatch(request.account_id, now)  # the freed slot takes the first waiting visitor
    else:
        announce_queue(request.account_id, now)


def record(dialog: Dialog, text: str, type_response: str, now, *, event, human: bool = False, payload=None):
    """A live-chat moment kept in the dialog's interactions (its history and transcript). It carries
    its event's poll time, so a chatbox that reloads its history polls on from there, not twice."""
    payload = {**(payload or {}), "pollUpdatedInteractionDate": event.at_ms}
    line = Interaction.objects.create(
        dialog=dialog,
        bot_id=dialog.bot_id,
        counted=not dialog.qualification_mode,
        created_at=now,
        answer=text,
        type_response=type_response,
        language=dialog.language,
        space=dialog.space,
        human=human,
        payload=payload,
    )
    watching.talked(dialog, line)  # supervisors reading along see it
    return line


def dispatch(account_id: int, now=None, *, quiet: bool = False) -> int:
    """Give queued dialogs to operators with a free slot, first come first served; the visitors still
    waiting learn their new place. Returns how many dialogs were assigned. `quiet` (the clocks' pass):
    the consoles hear of the queue only if it changed."""
    now = now or timezone.now()
    if health.is_down():
        # The consoles cannot hear of a dialog while the layer is down (as in the handover): the visitors
        # keep their places, and the clocks' next pass after the layer is back gives them out.
        return 0
    assigned = 0
    with transaction.atomic():
        locking.hold_account(account_id)
        for request in queue.queued(account_id).select_for_update(of=("self",)):
            passed_on = [request.passed_on_by_id] if request.passed_on_by_id else []
            operator = queue.claim_operator(account_id, request.competency, now, exclude=passed_on)
            if operator is None:
                continue
            assign(request, operator, now, from_queue=True)
            assigned += 1
    announce_queue(account_id, now, force=bool(assigned) or not quiet)
    return assigned


def announce_queue(account_id: int, now=None, *, force: bool = True) -> None:
    """Tell each waiting visitor whose place changed their place and wait, and every console of the
    account the queue as it is now (when it changed, or always with `force`)."""
    now = now or timezone.now()
    with transaction.atomic():
        locking.hold_account(account_id)  # the places told and stored are those of one queue, in turn
        waiting = list(queue.queued(account_id))
        moved = [(place, r) for place, r in enumerate(waiting, start=1) if r.queue_position != place]
        if moved:
            estimate = queue.wait_estimator(account_id, now)
        for place, request in moved:
            request.queue_position = place
            LivechatRequest.objects.filter(pk=request.pk).update(queue_position=place)
            delivery.to_visitor(request, "notification", queue_values(request.dialog, place, estimate(place)), now)
        if moved or force:
            cards = [panel.card(request, place=place) for place, request in enumerate(waiting, start=1)]
            delivery.to_account(account_id, {"type": "queue", "queue": cards})


def queue_values(dialog: Dialog, place: int, wait_seconds: int) -> dict:
    """What the chatbox shows of the queue: a notice it keeps up to date (client-contract.md §4.3)."""
    return {
        "code": Code.WAITING_FOR_OPERATOR,
        "typeResponse": Code.WAITING_FOR_OPERATOR,
        "specialAction": Code.START_WAITING_QUEUE,
        "queuePosition": place,
        "estimatedWaitingDuration": wait_seconds,
        "text": sentence(dialog, K.LIVECHAT_QUEUED, position=place, minutes=max(1, round(wait_seconds / 60))),
    }


def transfer(request: LivechatRequest, target: Operator, now, *, code: str) -> None:
    """Give an assigned dialog to another operator (whose slot the caller claimed under the account's lock)."""
    previous = request.operator
    request.operator = target
    request.transfers += 1
    request.waiting_on = LivechatRequest.Waiting.OPERATOR
    request.waiting_since = now
    request.warned_at = None
    request.joined_at = None
    request.save(update_fields=["operator", "transfers", "waiting_on", "waiting_since", "warned_at", "joined_at"])
    dialog = request.dialog
    name = shown_name(target, dialog)
    text = sentence(dialog, K.LIVECHAT_TRANSFERRED, operator=name)
    event = delivery.to_visitor(request, "notification", {"code": code, "text": text, OPERATOR_NAME: name}, now)
    # In the history live chat goes on from here, with the new operator.
    line = record(dialog, text, Code.CONNECTION_SUCCEED, now, event=event, payload={OPERATOR_NAME: name})
    if previous is not None:
        queue.release_slot(previous.pk)
        removed = {"type": "removed", "dialog": request.pk, "to": target.name, "toKind": "operator"}
        delivery.to_operator(previous.pk, removed)
    delivery.to_operator(target.pk, {"type": "dialog", "dialog": panel.card(request), "sound": True})
    delivery.to_operator(target.pk, {"type": "message", "dialog": request.pk, "message": panel.message(line)})


def hand_back(operator: Operator, now, *, code: str = Code.OPERATOR_DISCONNECTED) -> int:
    """The operator is gone (console closed or dead, or offline by choice): each of their visitors is
    told, then goes to another operator with room, else back to the queue at their old place."""
    moved = 0
    with transaction.atomic():
        locking.hold_account(operator.account_id)
        held = (
            LivechatRequest.objects.select_for_update(of=("self",))
            .filter(operator=operator, status=R.ASSIGNED)
            .select_related("dialog__bot", "competency", "operator__user")
        )
        for request in held:
            dialog = request.dialog
            text = sentence(dialog, K.LIVECHAT_OPERATOR_DISCONNECTED)
            event = delivery.to_visitor(request, "notification", {"code": code, "text": text}, now)
            other = queue.claim_operator(request.account_id, request.competency, now, exclude=[operator.pk])
            if other is not None:
                transfer(request, other, now, code=Code.TRANSFERRED_AUTOMATICALLY)
            else:
                queue.release_slot(operator.pk)
                removed = {"type": "removed", "dialog": request.pk, "to": "", "toKind": "queue"}
                delivery.to_operator(operator.pk, removed)
                requeue(request, now, event=event)
            moved += 1
        announce_queue(operator.account_id, now)
    return moved
