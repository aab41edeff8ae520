"""The context lifecycle: a new context on first use, one id groups a dialog, an id idle for 10
minutes is revoked (its dialog archived), and an unknown, malformed or revoked id gives a new one.

A talk's new dialog is stored only with its first interaction, in one transaction (`new_dialog`, then
dialogs.engine saves both): a talk that fails half-way leaves no dialog without an interaction."""

import uuid
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from . import statements
from .models import Dialog


def parse_context_id(value: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value or "").strip())
    except ValueError:
        return None


def active_dialog(bot, context_id: str | None, now=None) -> Dialog | None:
    """The dialog of that id if it is still usable; a revoked one is archived on the way."""
    parsed = parse_context_id(context_id)
    if parsed is None:
        return None
    return still_active(Dialog.objects.filter(bot=bot, uuid=parsed).first(), now)


def still_active(dialog: Dialog | None, now=None) -> Dialog | None:
    """The dialog if it is still usable; a revoked one is archived on the way."""
    if dialog is None:
        return None
    now = now or timezone.now()
    if dialog.is_revoked(now):
        if dialog.archived_at is None:
            Dialog.objects.filter(pk=dialog.pk, archived_at=None).update(archived_at=now)
        return None
    return dialog


def dialog_with_bot(bot_uuid: str | None, context_id: str | None) -> Dialog | None:
    """The dialog of that context id in the bot of that UUID, its bot loaded in the same query (a talk
    in a running dialog then needs no separate bot lookup); None when either id is unknown."""
    parsed = parse_context_id(context_id)
    bot = parse_context_id(bot_uuid)
    if parsed is None or bot is None:
        return None
    # The talk's hot path: one statement compiled once per process (dialogs/statements.py).
    return statements.dialog_with_bot(parsed, bot)


def known_dialog(bot, context_id: str | None) -> Dialog | None:
    """The dialog of that id, archived or not (feedback on an answer read just before the idle limit)."""
    parsed = parse_context_id(context_id)
    if parsed is None:
        return None
    return Dialog.objects.filter(bot=bot, uuid=parsed).first()


def new_dialog(bot, now=None, **fields) -> Dialog:
    """A dialog not stored yet: the caller saves it in the transaction that stores its first interaction."""
    now = now or timezone.now()
    return Dialog(bot=bot, first_activity=now, last_activity=now, **fields)


def open_dialog(bot, now=None, **fields) -> Dialog:
    """A dialog stored at once (the context call opens a context before any talk)."""
    dialog = new_dialog(bot, now, **fields)
    dialog.save(force_insert=True)
    return dialog


def archive_dialog(dialog: Dialog, now=None):
    now = now or timezone.now()
    if dialog.pk is None:  # never stored: nothing to archive
        dialog.archived_at = now
        return
    Dialog.objects.filter(pk=dialog.pk, archived_at=None).update(archived_at=now)
    dialog.archived_at = now


def revoke_idle_dialogs(now=None) -> int:
    """Archive every dialog idle past the limit; returns how many. Lookups revoke lazily anyway."""
    now = now or timezone.now()
    limit = now - timedelta(seconds=settings.CONTEXT_IDLE_SECONDS)
    idle = Dialog.objects.filter(archived_at=None, last_activity__lt=limit, livechat=Dialog.Livechat.BOT)
    return idle.update(archived_at=now)
