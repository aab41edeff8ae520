"""Staff notes on a dialog: an operator's private note, a supervisor's whisper to the operator, a supervisor
joining a live dialog. Kept with the dialog for staff (the console, the back office's dialog page and its
printable transcript); nothing that serves the visitor reads them (history, poll, websocket, exports)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

NOTE_MAX_CHARS = 4000


class DialogNote(models.Model):
    class Kind(models.TextChoices):
        NOTE = "note", _("Private note")
        WHISPER = "whisper", _("Whisper to the operator")
        # Recorded when a supervisor joins a live dialog: from then on they may write to its visitor.
        JOINED = "joined", _("Supervisor joined")

    # Deleted with the dialog: a GDPR erasure and the retention purge take the notes too.
    dialog = models.ForeignKey(
        "dialogs.Dialog", on_delete=models.CASCADE, related_name="notes", verbose_name=_("dialog")
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.NOTE)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("author"),
    )
    # The author's name as the console showed it then, kept if the user is deleted.
    author_name = models.CharField(_("author's name"), max_length=100)
    # A whisper's operator: the one who held the dialog when it was written.
    to_name = models.CharField(_("whispered to"), max_length=100, blank=True)
    text = models.TextField(_("text"), blank=True)
    created_at = models.DateTimeField(_("written at"), default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("staff note")
        verbose_name_plural = _("staff notes")
        indexes = [models.Index(fields=["dialog", "created_at"])]

    def __str__(self):
        return f"{self.get_kind_display()} by {self.author_name}"
