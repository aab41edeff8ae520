"""What the dialogs app reports in the server status: its store (part of the `dialog` application),
the dialog log (`slogger`), analytics (`analytic`) and the dialogs live now (`currentDialogs`)."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from bots.status.checks import OK, Result

from .models import Dialog, Interaction


def dialog_store() -> Result:
    """The dialogs table answers (the dialog engine's store)."""
    Dialog.objects.order_by().values("pk").first()
    return Result(OK, {"dialogs": "Ok"})


def slogger() -> Result:
    """The dialog log: the interactions store and the time of the last interaction logged."""
    last = Interaction.objects.order_by("-created_at").values_list("created_at", flat=True).first()
    return Result(OK, {"lastInteraction": last.strftime("%Y-%m-%d %H:%M:%S") if last else None})


def analytic() -> Result:
    """Analytics: the counted interactions of the last 24 hours, read as the reports read them."""
    since = timezone.now() - timedelta(hours=24)
    count = Interaction.objects.filter(counted=True, created_at__gte=since).count()
    return Result(OK, {"interactionsLast24h": count})


def current_dialogs(now=None) -> int:
    """Dialogs whose context id is still live (active in the last CONTEXT_IDLE_SECONDS)."""
    since = (now or timezone.now()) - timedelta(seconds=settings.CONTEXT_IDLE_SECONDS)
    return Dialog.objects.filter(archived_at__isnull=True, last_activity__gte=since).count()
