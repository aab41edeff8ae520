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
        "operator": (interaction.payload or {}).get("fromDetail", ""),
        "operatorLogin": (interaction.payload or {}).get("operator", ""),
        "type": interaction.type_response,
        # A file the visitor sent (livechat/uploads): name, size, type and the operators' download link.
        "file": (interaction.payload or {}).get("upload"),
        # The suggested answer an operator's message came from (livechat/suggestions.py): item, label, edited.
        "suggestion": (interaction.payload or {}).get("suggestion"),
    }


def transcript(request: LivechatRequest) -> list[dict]:
    """The whole dialog, the bot's part included: the operator reads what came before."""
    rows = Interaction.objects.filter(dialog_id=request.dialog_id).order_by("created_at", "pk")
    return [message(row) for row in rows]


def operator_card(operator: Operator, now=None) -> dict:
    from .presence import is_online

    return {
        "id": operator.pk,
        "name": operator.name,
        "login": operator.user.get_username(),
        "status": operator.status if is_online(operator, now) else Operator.Status.OFFLINE,
        "activeDialogs": operator.active_dialogs,
        "maxDialogs": operator.max_dialogs,
        "competencies": sorted(c.name for c in operator.competencies.all()),
    }
