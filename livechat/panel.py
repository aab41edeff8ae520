"""What the operators' console shows, as plain JSON: dialog cards, transcript lines, operators."""

from dialogs.handover import Code
from dialogs.models import Interaction

from .models import LivechatRequest, Operator

# Answers of these types are live chat's own notices, shown in the console as a line, not a bubble.
NOTICE_TYPES = {
    Code.CONNECTION_SUCCEED,
    Code.WAITING_FOR_OPERATOR,
    Code.LEAVE_QUEUE,
    Code.END_BY_OPERATOR,
    Code.AUTO_CLOSE,
    Code.AUTO_CLOSE_USER_LEFT,
}


def iso(moment) -> str | None:
    return moment.isoformat() if moment else None


def card(request: LivechatRequest, place: int | None = None) -> dict:
    """A dialog in the console's list: who, where from, how long it waits, whose turn it is."""
    dialog = request.dialog
    operator = request.operator
    return {
        "id": request.pk,
        "contextId": str(dialog.uuid),
        "status": request.status,
        "bot": dialog.bot.name,
        "language": dialog.language,
        "space": dialog.space,
        "competency": request.competency.name if request.competency_id else "",
        "operator": operator.name if operator else "",
        "operatorId": operator.pk if operator else None,
        "queuedAt": iso(request.queued_at),
        "assignedAt": iso(request.assigned_at),
        "waitingOn": request.waiting_on,
        "waitingSince": iso(request.waiting_since),
        "place": place,
        "transfers": request.transfers,
        "visitor": {
            "userUrl": dialog.user_url,
            "browser": dialog.browser,
            "os": dialog.os,
            "variables": dialog.variables or {},
            "firstActivity": iso(dialog.first_activity),
        },
    }


def message(interaction: Interaction) -> dict:
    """One exchange of the dialog: the visitor's input and the bot's or operator's answer."""
    payload = interaction.payload or {}
    if interaction.type_response == Code.VISITOR_MESSAGE:
        author = "visitor"
    elif interaction.human:
        author = "operator"
    elif interaction.type_response in NOTICE_TYPES:
        author = "notice"
    else:
        author = "bot"
    return {
        "id": interaction.pk,
        "at": iso(interaction.created_at),
        "from": author,
        "user": interaction.user_input,
        "text": interaction.answer,
        # An operator's message names them in fromDetail, a live-chat notice in operatorName (notices.py).
        "operator": payload.get("fromDetail") or payload.get("operatorName", ""),
        "operatorLogin": payload.get("operator", ""),
        "type": interaction.type_response,
        # A file the visitor sent (livechat/uploads): name, size, type and the operators' download link.
        "file": payload.get("upload"),
        # The suggested answer an operator's message came from (livechat/suggestions.py): item, label, edited.
        "suggestion": payload.get("suggestion"),
    }


def transcript(request: LivechatRequest) -> list[dict]:
    """The whole dialog, the bot's part included: the operator reads what came before."""
    from .staff_notes import merged  # staff_notes pushes through watching, which draws with this module

    rows = Interaction.objects.filter(dialog_id=request.dialog_id).order_by("created_at", "pk")
    return merged(request.dialog_id, [message(row) for row in rows])  # staff notes in their place


def operator_card(operator: Operator, now=None) -> dict:
    from .presence import is_online

    return {
        "id": operator.pk,
        "name": operator.name,
        "login": operator.user.get_username(),
        "displayName": operator.display_name,
        "status": operator.status if is_online(operator, now) else Operator.Status.OFFLINE,
        "activeDialogs": operator.active_dialogs,
        "maxDialogs": operator.max_dialogs,
        "competencies": sorted(c.name for c in operator.competencies.all()),
    }
