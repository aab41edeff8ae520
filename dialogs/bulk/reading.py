"""One dialog with its interactions, as the Dialogs group's GET shows it (the same fields as an
export's rows, the dialog's once and its interactions as a list)."""

from bots.servlet.errors import NotFound

from ..contexts import known_dialog
from ..models import Dialog, Interaction
from .export import interaction_json
from .selection import dialog_marks


def find_dialog(bot, context_id: str) -> Dialog:
    """The bot's dialog of that context id, archived or not; 404 UNKNOWN_CONTEXT otherwise (a malformed
    id, or a dialog of another bot, is unknown here too)."""
    dialog = known_dialog(bot, context_id)
    if dialog is None:
        raise NotFound(f"The bot has no dialog with the context id '{context_id[:64]}'.", code="UNKNOWN_CONTEXT")
    return dialog


def dialog_json(dialog: Dialog, *, client_ids: bool) -> dict:
    livechat = dialog_marks({dialog.pk: dialog.livechat})[dialog.pk].livechat
    interactions = Interaction.objects.filter(dialog=dialog).order_by("created_at", "id")
    return {
        "contextId": str(dialog.uuid),
        "botUUID": str(dialog.bot.uuid),
        "dialogStart": dialog.first_activity.isoformat(),
        "lastActivity": dialog.last_activity.isoformat(),
        "archived": dialog.archived_at is not None,
        "language": dialog.language,
        "space": dialog.space,
        "qualificationMode": dialog.qualification_mode,
        "livechat": livechat,
        "clientId": dialog.client_id if client_ids else "",
        "browser": dialog.browser,
        "os": dialog.os,
        "userUrl": dialog.user_url,
        "interactions": [interaction_json(interaction) for interaction in interactions],
    }
