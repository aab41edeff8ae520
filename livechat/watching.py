"""Reading along: each new line of a monitored bot's dialog (the visitor's words, the bot's or an operator's
answer, live chat's notices, staff notes) is pushed after commit to its account's supervisors' consoles,
with the dialog's summary, whether the bot or a human holds it."""

from django.db import transaction
from django.utils import timezone

from . import delivery, panel, supervisors
from .layer_health import health


def moved(dialog, shown, now=None) -> None:
    """`shown`: the new line as the console draws it, or a function that draws it (called only when someone
    reads along: every talk passes here); None: only the dialog's summary changed."""
    if health.is_down():
        return  # nothing can be pushed; the supervisors' consoles read the dialog again when it is back
    monitored, account_id, bot_name = supervisors.monitoring(dialog.bot_id)
    if not monitored:
        return
    summary = {
        "id": dialog.pk,
        "contextId": str(dialog.uuid),
        "bot": bot_name,
        # "" (the bot), "queued" or "operator", as the dialog's live-chat mark says.
        "state": dialog.livechat or "bot",
        "language": dialog.language,
        "space": dialog.space,
        "lastActivity": (now or timezone.now()).isoformat(),
        "visitor": {"variables": dialog.variables if isinstance(dialog.variables, dict) else {}},
    }
    message = {"type": "watch", "conversation": summary, "message": shown() if callable(shown) else shown}
    group = supervisors.watch_group(account_id)
    transaction.on_commit(lambda: delivery.send(group, {"type": "console.push", "message": message}))


def talked(dialog, interaction) -> None:
    """A talk was stored (the bot answered, or the visitor wrote to the operator)."""
    if interaction is not None and interaction.pk is not None:
        moved(dialog, lambda: panel.message(interaction), interaction.created_at)
