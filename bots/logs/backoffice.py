"""The error logs in the back office: read-only lists of a bot's server errors and client error reports,
for the people the Log Explicit API lets read them (status.details), scoped to their account's bots."""

from django.contrib import admin
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from bots.admin_scoping import BotScopedAdmin, ReadOnlyAdmin

from .recording import store_held_errors


class ReadOnlyLogAdmin(ReadOnlyAdmin, BotScopedAdmin):
    """Logs are written by the platform only, and read by those the Log Explicit API lets read them
    (status.details: the log models' view permissions, accounts/roles.py)."""


class ByDate(admin.DateFieldListFilter):
    """The side bar's date filter, titled "By date" whatever the field is called."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = _("date")


class ServerErrorAdmin(ReadOnlyLogAdmin):
    list_display = ["when", "bot", "operation", "error", "count", "message"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter), "status", "code", ("minute", ByDate)]
    date_hierarchy = "minute"
    search_fields = ["operation", "code", "message"]
    list_select_related = ["bot"]

    def changelist_view(self, request, extra_context=None):
        store_held_errors()  # the repeats this process holds back (at most a second's) show in the counts
        return super().changelist_view(request, extra_context)

    @admin.display(description=_("Minute"), ordering="minute")
    def when(self, row):
        return date_format(timezone.localtime(row.minute), "SHORT_DATETIME_FORMAT")

    @admin.display(description=_("Error"), ordering="status")
    def error(self, row):
        return f"{row.status} {row.code}" if row.status else row.code
