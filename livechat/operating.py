"""The operator's side of a live dialog: write to the visitor, show typing, take a dialog from the
queue, transfer it, end it. Each action checks that the dialog is the operator's to act on and
changes nothing otherwise."""

import html
import re

from django.db import transaction
from django.utils import timezone

from accounts.models import Competency
from bots.servlet.errors import BadRequest, Forbidden, InvalidField, MissingField, NotFound, ServletError
from dialogs.handover import Code
from knowledge.models import GlobalSentence

from . import assignment, delivery, locking, panel, queue, staff_notes, suggestions
from .models import LivechatRequest, Operator
from .names import shown_name
from .notices import OPERATOR_NAME

K = GlobalSentence.Kind
R = LivechatRequest.Status
MESSAGE_MAX_CHARS = 4000
URL = re.compile(r"https?://[^\s<>\"']+")


class Conflict(ServletError):
    status, code = 409, "CONFLICT"


def find_request(
    operator: Operator, request_id, *, lock: bool = True, related=("dialog__bot", "operator__user", "competency")
) -> LivechatRequest:
    """A live-chat request of the operator's account (404 otherwise: another account's is not shown),
    with the rows `related` names (a message needs only its dialog: fewer joins on the hot path)."""
    try:
        pk = int(request_id)
    except (TypeError, ValueError):
        raise InvalidField("dialog", "not a live-chat dialog id") from None
    requests = LivechatRequest.objects.filter(pk=pk, account_id=operator.account_id)
    if lock:
        requests = requests.select_for_update(of=("self",))
    request = requests.select_related(*related).first()
    if request is None:
        raise NotFound(f"No live-chat dialog {pk} in your account.", code="UNKNOWN_DIALOG")
    return request


def held_by(operator: Operator, request: LivechatRequest) -> LivechatRequest:
    if request.status != R.ASSIGNED:
        raise Conflict("This dialog is not live any more.", code="DIALOG_NOT_LIVE")
    # A supervisor who joined the dialog acts in it beside its operator (staff_notes.joined).
    if request.operator_id != operator.pk and not staff_notes.joined(operator, request):
        raise Forbidden("This dialog is assigned to another operator.", code="NOT_YOUR_DIALOG")
    return request


def operator_text(text: str) -> str:
    """An operator's plain text as answer HTML: escaped, line breaks kept, web addresses as links."""
    escaped = html.escape(text.strip(), quote=False)
    linked = URL.sub(lambda m: f'<a href="{m.group(0)}" target="_blank" rel="noopener">{m.group(0)}</a>', escaped)
    return linked.replace("\r\n", "\n").replace("\n", "<br>")


def send_message(operator: Operator, request_id, text: str, now=None, *, suggestion=None) -> dict:
    """Store the operator's message in the dialog and as the visitor's event; it is pushed on commit.
    `suggestion`: the suggested answer's item it came from (suggestions.py), kept with the message."""
    text = (text or "").replace("\x00", "").strip()  # PostgreSQL stores no NUL character
    if not text:
        raise MissingField("text")
    if len(text) > MESSAGE_MAX_CHARS:
        raise InvalidField("text", f"at most {MESSAGE_MAX_CHARS} characters")
    now = now or timezone.now()
    with transaction.atomic():
        request = held_by(operator, find_request(operator, request_id, related=("dialog",)))
        noted = suggestions.noted(request.dialog, suggestion, text)  # refused before anything changes
        answer = operator_text(text)
        request.waiting_on = LivechatRequest.Waiting.VISITOR
        request.waiting_since = now
        request.warned_at = None
        request.save(update_fields=["waiting_on", "waiting_since", "warned_at"])
        assignment.touch(request.dialog, now)
        name = shown_name(operator, request.dialog)
        values = {
            "text": answer,
            "fromDetail": name,
            "human": True,
            "typeResponse": Code.OPERATOR_ANSWER,
            # Sent back with a survey's answers (client-contract.md §4.2): the operator, never their login.
            "operatorExternalId": str(operator.pk),
        }
        event = delivery.to_visitor(request, "talkResponse", values, now, locked=True)
        payload = {"fromDetail": name, "operator": operator.user.get_username(), **noted}
        interaction = assignment.record(
            request.dialog, answer, Code.OPERATOR_ANSWER, now, event=event, human=True, payload=payload
        )
        line = panel.message(interaction)
        delivery.to_operator(operator.pk, {"type": "message", "dialog": request.pk, "message": line})
        if request.operator_id != operator.pk:  # a supervisor who joined: the operator sees it too
            delivery.to_operator(request.operator_id, {"type": "message", "dialog": request.pk, "message": line})
    return line


def open_dialog(operator: Operator, request_id, now=None) -> dict:
    """The console opens a dialog: its card and whole transcript. The first time its operator opens it,
    the visitor learns that a person is now reading (OperatorConnected)."""
    now = now or timezone.now()
    with transaction.atomic():
        request = find_request(operator, request_id)
        if request.status == R.ASSIGNED and request.operator_id == operator.pk and request.joined_at is None:
            request.joined_at = now
            request.save(update_fields=["joined_at"])
            name = shown_name(operator, request.dialog)
            text = assignment.sentence(request.dialog, K.LIVECHAT_JOINED, operator=name)
            values = {"code": Code.OPERATOR_CONNECTED, "text": text, OPERATOR_NAME: name}
            delivery.to_visitor(request, "notification", values, now)
    return {"type": "transcript", "dialog": panel.card(request), "messages": panel.transcript(request)}


def set_typing(operator: Operator, request_id, typing: bool, now=None) -> None:
    """The visitor sees "… is typing" while the operator writes (an empty text clears it)."""
    now = now or timezone.now()
    with transaction.atomic():
        request = held_by(operator, find_request(operator, request_id, related=("dialog",)))
        name = shown_name(operator, request.dialog)
        # Stopped typing: no text at all (an empty one counts as present for CV5's polling, notices.py).
        values = {"code": Code.OPERATOR_WRITING, OPERATOR_NAME: name} | ({"text": f"{name} …"} if typing else {})
        delivery.to_visitor(request, "notification", values, now, locked=True)


def take(operator: Operator, request_id, now=None) -> dict:
    """The operator takes a waiting dialog from the queue themselves."""
    now = now or timezone.now()
    with transaction.atomic():
        locking.hold_account(operator.account_id)  # the queue and the slots: before the request's row
        request = find_request(operator, request_id)
        if request.status != R.QUEUED:
            raise Conflict("This dialog is not waiting in the queue any more.", code="NOT_IN_QUEUE")
        if operator.status == Operator.Status.OFFLINE:
            raise Conflict("You are offline: set your availability before taking a dialog.", code="OPERATOR_OFFLINE")
        if request.competency_id and not operator.competencies.filter(pk=request.competency_id).exists():
            raise Forbidden(f"This dialog needs the competency '{request.competency.name}'.", code="NOT_COMPETENT")
        if not queue.claim_slot(operator, now):
            raise Conflict(f"You already hold {operator.max_dialogs} dialogs, your limit.", code="OPERATOR_FULL")
        assignment.assign(request, operator, now, from_queue=True, sound=False)
        assignment.announce_queue(operator.account_id, now)
    return panel.card(request)


def transfer(operator: Operator, request_id, *, to_login: str = "", to_competency: str = "", now=None) -> dict:
    """Hand a dialog to another operator by login, or to whoever has a competency (the queue if they
    are all busy). A target nobody can serve is refused and nothing changes."""
    if bool(to_login) == bool(to_competency):
        raise BadRequest("Name either an operator (login) or a competency to transfer to.", code="TRANSFER_TARGET")
    now = now or timezone.now()
    with transaction.atomic():
        locking.hold_account(operator.account_id)
        request = held_by(operator, find_request(operator, request_id))
        if to_login:
            target = (
                Operator.objects.filter(account_id=operator.account_id, user__username=to_login)
                .select_related("user")
                .first()
            )
            if target is None:
                raise NotFound(f"No operator '{to_login[:100]}' in your account.", code="UNKNOWN_OPERATOR")
            if target.pk == operator.pk:
                raise BadRequest("The dialog is yours already.", code="TRANSFER_TARGET")
            if not queue.online_operators(operator.account_id, now=now).filter(pk=target.pk).exists():
                raise Conflict(f"{target.name} is not available.", code="OPERATOR_UNAVAILABLE")
            if not queue.claim_slot(target, now):
                raise Conflict(f"{target.name} has no free slot.", code="OPERATOR_FULL")
            assignment.transfer(request, target, now, code=Code.TRANSFERRED_MANUALLY)
            return panel.card(request)

        competency = queue.find_competency(operator.account_id, to_competency)
        if competency is None:
            raise NotFound(f"Your account has no competency '{to_competency[:100]}'.", code="UNKNOWN_COMPETENCY")
        if not Operator.objects.filter(account_id=operator.account_id, competencies=competency).exists():
            raise Conflict(f"No operator has the competency '{competency.name}'.", code="NOBODY_COMPETENT")
        others_online = queue.online_operators(operator.account_id, competency, now).exclude(pk=operator.pk)
        if not others_online.exists():
            raise Conflict(
                f"No other operator with the competency '{competency.name}' is available now.",
                code="NOBODY_AVAILABLE",
            )
        request.competency = competency
        request.passed_on_by = operator
        request.save(update_fields=["competency", "passed_on_by"])
        target = queue.claim_operator(operator.account_id, competency, now, exclude=[operator.pk])
        if target is not None:
            assignment.transfer(request, target, now, code=Code.TRANSFERRED_MANUALLY)
            return panel.card(request)
        text = assignment.sentence(request.dialog, K.LIVECHAT_TRANSFERRED, operator=competency.name)
        event = delivery.to_visitor(request, "notification", {"code": Code.TRANSFERRED_MANUALLY, "text": text}, now)
        queue.release_slot(operator.pk)
        removed = {"type": "removed", "dialog": request.pk, "to": competency.name, "toKind": "competency"}
        delivery.to_operator(operator.pk, removed)
        assignment.requeue(request, now, event=event)
        assignment.announce_queue(operator.account_id, now)
    return panel.card(request)


def end(operator: Operator, request_id, now=None) -> None:
    now = now or timezone.now()
    with transaction.atomic():
        locking.hold_account(operator.account_id)
        request = held_by(operator, find_request(operator, request_id))
        assignment.end(
            request,
            LivechatRequest.EndReason.OPERATOR,
            now,
            type_response=Code.END_BY_OPERATOR,
            kind=K.LIVECHAT_END,
        )


def competency_names(account_id: int) -> list[str]:
    return list(Competency.objects.filter(account_id=account_id).order_by("name").values_list("name", flat=True))
