"""The console's wider views and the supervisor's actions, by dialog (a bot's dialog has no live-chat request).

Every operator: the All view (the account's dialogs with a human or waiting for one), reading any dialog of
the account's bots (operators read dialogs in the back office too), private notes on the dialogs they hold.
Supervisors (supervisors.py), on the dialogs of monitored bots: the All view also lists the dialogs still with
the bot, and they read along (watching.py pushes them each line), whisper to the operator, join the dialog
(they write to the visitor beside the operator) or take it over (it becomes theirs). Each action checks the
account (another account's dialog: 404), the right (403) and the dialog's state (409) on the server."""

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.html import strip_tags

from bots.servlet.errors import Forbidden, InvalidField, NotFound
from dialogs.handover import Code
from dialogs.models import Dialog, Interaction
from dialogs.notes import DialogNote
from knowledge.models import GlobalSentence

from . import assignment, delivery, locking, panel, queue, staff_notes, supervisors
from .models import LivechatRequest, Operator
from .names import shown_name
from .notices import OPERATOR_NAME
from .operating import Conflict, find_request

K = GlobalSentence.Kind
R = LivechatRequest.Status
LIST_LIMIT = 200


def find_dialog(operator: Operator, conversation_id) -> Dialog:
    """A dialog of the operator's account's bots; 404 otherwise (another account's is not shown)."""
    try:
        pk = int(conversation_id)
    except (TypeError, ValueError):
        raise InvalidField("conversation", "not a dialog id") from None
    dialog = Dialog.objects.filter(pk=pk, bot__account_id=operator.account_id).select_related("bot").first()
    if dialog is None:
        raise NotFound(f"No dialog {pk} in your account.", code="UNKNOWN_DIALOG")
    return dialog


def summary(dialog: Dialog, request: LivechatRequest | None, operator: Operator, monitored: set[int]) -> dict:
    """A dialog in the All view, the search's results and the reading pane."""
    holder = request.operator if request is not None and request.status == R.ASSIGNED else None
    state = "bot" if request is None else ("operator" if holder is not None else "queued")
    last = getattr(dialog, "last_line", None)
    return {
        "id": dialog.pk,
        "contextId": str(dialog.uuid),
        "bot": dialog.bot.name,
        "state": state,
        "language": dialog.language,
        "space": dialog.space,
        "startedAt": panel.iso(dialog.first_activity),
        "lastActivity": panel.iso(dialog.last_activity),
        "request": request.pk if request is not None else None,
        "operator": holder.name if holder else "",
        "operatorId": holder.pk if holder else None,
        "mine": bool(holder and holder.pk == operator.pk),
        "competency": request.competency.name if request is not None and request.competency_id else "",
        "monitored": dialog.bot_id in monitored,
        "preview": last if isinstance(last, str) else "",
        "visitor": {
            "userUrl": dialog.user_url,
            "browser": dialog.browser,
            "os": dialog.os,
            "variables": dialog.variables if isinstance(dialog.variables, dict) else {},
        },
    }


def with_last_line(dialogs):
    """Each dialog with the text of its last line (what the visitor wrote, else the answer)."""
    last = Interaction.objects.filter(dialog_id=OuterRef("pk")).order_by("-created_at", "-pk")
    return dialogs.annotate(
        last_input=Subquery(last.values("user_input")[:1]), last_answer=Subquery(last.values("answer")[:1])
    )


def preview(dialog: Dialog) -> str:
    said = (getattr(dialog, "last_input", "") or "").strip()
    if said and not said.startswith("#"):
        return said[:160]
    return panel_plain(getattr(dialog, "last_answer", "") or "")[:160]


def panel_plain(html: str) -> str:
    return " ".join(strip_tags(html).split())


def summaries(dialogs, operator: Operator, monitored: set[int]) -> list[dict]:
    dialogs = list(dialogs)
    requests = {
        request.dialog_id: request
        for request in LivechatRequest.objects.filter(
            dialog_id__in=[dialog.pk for dialog in dialogs], status__in=[R.QUEUED, R.ASSIGNED]
        ).select_related("operator__user", "competency")
    }
    found = []
    for dialog in dialogs:
        dialog.last_line = preview(dialog)
        found.append(summary(dialog, requests.get(dialog.pk), operator, monitored))
    return found


def everything(operator: Operator, now=None) -> dict:
    """The All view: the account's dialogs with an operator or in the queue and, for a supervisor, those
    of monitored bots still with the bot (active within the context's idle time), latest first."""
    now = now or timezone.now()
    supervising = supervisors.is_supervisor(operator.user_id)
    monitored = supervisors.monitored_bot_ids(operator.account_id)
    live = Q(livechat_requests__status__in=[R.QUEUED, R.ASSIGNED])
    if supervising and monitored:
        recent = now - timedelta(seconds=settings.CONTEXT_IDLE_SECONDS)
        live |= Q(bot_id__in=monitored, archived_at=None, last_activity__gte=recent)
    dialogs = (
        Dialog.objects.filter(bot__account_id=operator.account_id)
        .filter(live)
        .distinct()
        .select_related("bot")
        .order_by("-last_activity", "-pk")
    )
    return {
        "type": "all",
        "supervisor": supervising,
        "conversations": summaries(with_last_line(dialogs)[:LIST_LIMIT], operator, monitored),
    }


def read(operator: Operator, conversation_id) -> dict:
    """A dialog's whole transcript with its staff notes; for a supervisor on a monitored bot, reading along."""
    dialog = find_dialog(operator, conversation_id)
    monitored = supervisors.monitored_bot_ids(operator.account_id)
    request = assignment.open_request_of(dialog)
    rows = Interaction.objects.filter(dialog=dialog).order_by("created_at", "pk")
    messages = staff_notes.merged(dialog.pk, [panel.message(row) for row in rows])
    dialog.last_line = preview(dialog)
    return {
        "type": "conversation",
        "conversation": summary(dialog, request, operator, monitored),
        "messages": messages,
        "joined": bool(request is not None and request.status == R.ASSIGNED and staff_notes.joined(operator, request)),
        # Lines arrive as they happen only where the operator may supervise and the bot is monitored.
        "live": dialog.bot_id in monitored and supervisors.is_supervisor(operator.user_id),
    }


def note(operator: Operator, text, *, request_id=None, conversation_id=None, now=None) -> dict:
    """A private note: by the dialog's operator (while they hold it or after it ended), or by a supervisor on
    a monitored bot's dialog (a whisper when another operator holds it). Never sent to the visitor."""
    text = staff_notes.clean_text(text)
    now = now or timezone.now()
    with transaction.atomic():
        if request_id is not None:
            request = find_request(operator, request_id, lock=False, related=("operator__user",))
            dialog = Dialog.objects.select_related("bot").get(pk=request.dialog_id)
            request.dialog = dialog
            its_operator = request.operator_id == operator.pk
        else:
            dialog = find_dialog(operator, conversation_id)
            request = assignment.open_request_of(dialog)
            its_operator = request is not None and request.operator_id == operator.pk
        live = request if request is not None and request.status == R.ASSIGNED else None
        if not its_operator or (live is not None and live.operator_id != operator.pk):
            # Anyone but the dialog's operator is a supervisor, on a monitored bot.
            if not supervisors.is_supervisor(operator.user_id):
                raise Forbidden("Only the dialog's operator and supervisors write notes on it.", code="NOT_YOUR_DIALOG")
            supervisors.require_monitored(dialog.bot)
        whisper = live is not None and live.operator_id != operator.pk
        kind = DialogNote.Kind.WHISPER if whisper else DialogNote.Kind.NOTE
        written = staff_notes.record(
            dialog, operator, kind, text, to_name=live.operator.name if whisper else "", now=now
        )
        shown = staff_notes.announce(live, operator, written)
    return {"type": "noted", "conversation": dialog.pk, "dialog": request.pk if request else None, "note": shown}


def join(operator: Operator, conversation_id, now=None) -> dict:
    """The supervisor joins a live dialog: the visitor is told who joined, the operator sees it, and the
    supervisor may write to the visitor from then on (operating.held_by)."""
    supervisors.require(operator)
    now = now or timezone.now()
    with transaction.atomic():
        dialog = find_dialog(operator, conversation_id)
        supervisors.require_monitored(dialog.bot)
        request = assignment.open_request_of(dialog, lock=True)
        if request is None or request.status != R.ASSIGNED:
            raise Conflict(
                "No operator holds this dialog: take it over to answer its visitor.", code="NOT_WITH_AN_OPERATOR"
            )
        if request.operator_id == operator.pk:
            raise Conflict("This dialog is yours already.", code="ALREADY_YOURS")
        if not staff_notes.joined(operator, request):
            written = staff_notes.record(
                dialog, operator, DialogNote.Kind.JOINED, to_name=request.operator.name, now=now
            )
            name = shown_name(operator, dialog)
            text = assignment.sentence(dialog, K.LIVECHAT_JOINED, operator=name)
            delivery.to_visitor(
                request, "notification", {"code": Code.OPERATOR_CONNECTED, "text": text, OPERATOR_NAME: name}, now
            )
            staff_notes.announce(request, operator, written)
        monitored = supervisors.monitored_bot_ids(operator.account_id)
    return {"type": "joined", "conversation": summary(dialog, request, operator, monitored), "dialog": request.pk}


def take_over(operator: Operator, conversation_id, now=None) -> dict:
    """The supervisor takes the dialog: from its operator (who is told), from the queue, or from the bot (live
    chat starts with them). It is then theirs, with one of their slots, as a dialog they took."""
    supervisors.require(operator)
    now = now or timezone.now()
    with transaction.atomic():
        locking.hold_account(operator.account_id)  # the queue and the slots: before the request's row
        dialog = find_dialog(operator, conversation_id)
        supervisors.require_monitored(dialog.bot)
        operator.refresh_from_db(fields=["status", "active_dialogs", "max_dialogs"])
        if operator.status == Operator.Status.OFFLINE:
            raise Conflict("You are offline: set your availability before taking a dialog.", code="OPERATOR_OFFLINE")
        request = assignment.open_request_of(dialog, lock=True)
        if request is not None and request.operator_id == operator.pk and request.status == R.ASSIGNED:
            raise Conflict("This dialog is yours already.", code="ALREADY_YOURS")
        if request is None:
            _check_with_the_bot(dialog, now)
        if not queue.claim_slot(operator, now):
            raise Conflict(f"You already hold {operator.max_dialogs} dialogs, your limit.", code="OPERATOR_FULL")
        if request is None:
            request = _start_live_chat(dialog, operator, now)
        elif request.status == R.ASSIGNED:
            assignment.transfer(request, operator, now, code=Code.TRANSFERRED_MANUALLY)
        else:
            assignment.assign(request, operator, now, from_queue=True, sound=False)
            assignment.announce_queue(operator.account_id, now)
        monitored = supervisors.monitored_bot_ids(operator.account_id)
        card = panel.card(request)
    return {"type": "takenover", "conversation": summary(dialog, request, operator, monitored), "dialog": card}


def _check_with_the_bot(dialog: Dialog, now) -> None:
    if dialog.is_revoked(now):
        raise Conflict("This dialog is over: its visitor is not there any more.", code="DIALOG_OVER")
    if not queue.settings_for(dialog.bot).enabled:
        raise Conflict(f"Live chat is off for the bot '{dialog.bot.name}'.", code="LIVECHAT_OFF")


def _start_live_chat(dialog: Dialog, operator: Operator, now) -> LivechatRequest:
    """A dialog with the bot goes live with the supervisor: the visitor is told who takes it."""
    try:
        with transaction.atomic():
            request = assignment.open_request(dialog, operator.account_id, None, now)
    except IntegrityError:
        # The visitor asked for a human in the same instant: their handover has it.
        raise Conflict(
            "This dialog was handed to live chat a moment ago; try again.", code="HANDOVER_UNDER_WAY"
        ) from None
    assignment.assign(request, operator, now, from_queue=True, sound=False)
    return request
