"""A dialog's reading marks: read (someone opened it), corrected (someone fixed the knowledge after
reading it). Each is one UPDATE, so a page of dialogs is marked at once."""

from django.utils import timezone

from ..models import Dialog


def mark_read(dialog: Dialog, user) -> bool:
    """The first opening marks the dialog read by that user; later openings change nothing."""
    if dialog.read_at is not None:
        return False
    now = timezone.now()
    if Dialog.objects.filter(pk=dialog.pk, read_at__isnull=True).update(read_at=now, read_by=user):
        dialog.read_at, dialog.read_by = now, user
        return True
    return False


def set_read(dialogs, user, read: bool) -> int:
    if read:
        return dialogs.filter(read_at__isnull=True).update(read_at=timezone.now(), read_by=user)
    # An unread dialog is not corrected either: it goes back to the start of the reading workflow.
    return dialogs.update(read_at=None, read_by=None, corrected_at=None, corrected_by=None)


def set_corrected(dialogs, user, corrected: bool) -> int:
    if not corrected:
        return dialogs.exclude(corrected_at=None).update(corrected_at=None, corrected_by=None)
    now = timezone.now()
    # A corrected dialog has been read, by the one who corrected it if nobody had opened it.
    dialogs.filter(read_at__isnull=True).update(read_at=now, read_by=user)
    return dialogs.filter(corrected_at__isnull=True).update(corrected_at=now, corrected_by=user)
