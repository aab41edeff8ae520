"""The log of what was done about each GDPR request: data sent, data deleted, request ignored, or a
sending that failed; who did it, when, and what it touched."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class GdprAction(models.Model):
    """One action on a GDPR request (kept with the request, shown on its page)."""

    class Kind(models.TextChoices):
        SENT = "sent", _("Data sent")
        DELETED = "deleted", _("Data deleted")
        IGNORED = "ignored", _("Ignored")
        FAILED = "failed", _("Sending failed")

    request = models.ForeignKey(
        "dialogs.GdprRequest", on_delete=models.CASCADE, related_name="actions", verbose_name=_("request")
    )
    kind = models.CharField(_("action"), max_length=10, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("user"),
    )
    # The user's login as it was: the log still says who acted once the user is gone.
    user_name = models.CharField(_("by"), max_length=150, blank=True)
    at = models.DateTimeField(_("at"), default=timezone.now)
    note = models.TextField(_("note"), blank=True, help_text=_("The reason, the address written to, or the error."))
    # What was sent or deleted, per kind of data (dialogs, interactions, uploads…).
    counts = models.JSONField(default=dict, blank=True, verbose_name=_("counts"))

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("GDPR action")
        verbose_name_plural = _("GDPR actions")

    def __str__(self):
        return f"{self.get_kind_display()} ({self.at:%Y-%m-%d %H:%M})"
