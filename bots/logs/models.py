"""ServerError: the chat calls the server answered with an error, counted per bot, minute and kind, so the
Log Explicit group can list them by period (the server status only keeps counters)."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ServerError(models.Model):
    """One kind of error (operation, status, code) a bot's chat calls got during one minute, with how often.

    Errors are aggregated, not stored one by one: a flood of the same error in a minute is one row whose
    count grows (bots/logs/recording.py bounds the rows per bot and minute and purges old ones). The
    message is the server's own error text, cut short; the visitor's input is never stored.
    """

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="server_errors", verbose_name=_("bot"))
    minute = models.DateTimeField(
        help_text=_("The minute the errors happened in (its start)."), verbose_name=_("minute")
    )
    last_at = models.DateTimeField(_("last error at"))
    operation = models.CharField(
        max_length=120,
        help_text=_('The method and route, e.g. "POST chat/talk/{bot_uuid}".'),
        verbose_name=_("operation"),
    )
    status = models.PositiveSmallIntegerField(_("HTTP status"))
    code = models.CharField(
        max_length=50, blank=True, help_text=_("The error's stable code (INVALID_FIELD…)."), verbose_name=_("code")
    )
    message = models.CharField(
        max_length=200, blank=True, help_text=_("The first error text of that minute."), verbose_name=_("message")
    )
    count = models.PositiveIntegerField(default=1, verbose_name=_("count"))

    class Meta:
        ordering = ["-last_at", "-id"]
        verbose_name = _("server error")
        verbose_name_plural = _("server errors")
        constraints = [
            models.UniqueConstraint(
                fields=["bot", "minute", "operation", "status", "code"], name="one_server_error_row_per_minute_and_kind"
            )
        ]
        indexes = [
            models.Index(fields=["bot", "last_at"], name="server_error_bot_time"),
            models.Index(fields=["minute"], name="server_error_minute"),
        ]

    def __str__(self):
        return f"{self.status} {self.code} on {self.operation} ×{self.count}"
