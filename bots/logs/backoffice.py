"""The error logs in the back office: read-only lists of a bot's server errors and client error reports,
for the people the Log Explicit API lets read them (status.details), scoped to their account's bots."""

from django.contrib import admin

from accounts.admin import may
from bots.admin_scoping import BotScopedAdmin

from . import READ_LOGS


class ReadOnlyLogAdmin(BotScopedAdmin):
    """Logs are written by the platform only: nobody adds, edits or deletes a row by hand."""

    def has_module_permission(self, request):
        return may(request, READ_LOGS)

    def has_view_permission(self, request, obj=None):
        return may(request, READ_LOGS)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ServerErrorAdmin(ReadOnlyLogAdmin):
    list_display = ["minute", "last_at", "bot", "operation", "status", "code", "count", "message"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter), "status", "code", ("minute", admin.DateFieldListFilter)]
    date_hierarchy = "minute"
    search_fields = ["operation", "code", "message"]
    list_select_related = ["bot"]
