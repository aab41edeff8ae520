"""Back office for dialogs: reading conversations, GDPR requests and client errors."""

import json

from django.contrib import admin, messages
from django.db.models import Count, Q
from django.utils.html import format_html, format_html_join, strip_tags

from bots.admin_scoping import BotScopedAdmin
from bots.logs.backoffice import ByDate, ReadOnlyLogAdmin

from .models import ClientError, Dialog, GdprRequest, Interaction


def can_see_user_names(request) -> bool:
    """The visitor's id is shown to administrators only (product-behaviour.md §4.1)."""
    if request.user.is_superuser:
        return True
    membership = getattr(request.user, "membership", None)
    return membership is not None and membership.role == "administrator"


@admin.register(Dialog)
class DialogAdmin(BotScopedAdmin):
    list_display = [
        "started",
        "bot",
        "language",
        "space",
        "interaction_count",
        "feedback",
        "state",
        "qualification_mode",
    ]
    list_filter = ["bot", "language", "qualification_mode", ("archived_at", admin.EmptyFieldListFilter)]
    date_hierarchy = "first_activity"
    search_fields = ["uuid", "interactions__user_input"]
    fields = [
        "uuid",
        "bot",
        "visitor",
        ("language", "space"),
        ("first_activity", "last_activity", "archived_at"),
        "conversation",
        "variable_list",
        ("browser", "os"),
        "user_url",
    ]
    readonly_fields = [
        "uuid",
        "bot",
        "visitor",
        "language",
        "space",
        "first_activity",
        "last_activity",
        "archived_at",
        "conversation",
        "variable_list",
        "browser",
        "os",
        "user_url",
    ]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("bot")
            .annotate(
                interaction_total=Count("interactions"),
                negative=Count("interactions", filter=Q(interactions__feedback="negative")),
                positive=Count("interactions", filter=Q(interactions__feedback="positive")),
            )
        )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Visitor")
    def visitor(self, dialog):
        return dialog.client_id or "anonymous"

    def get_fields(self, request, obj=None):
        fields = list(self.fields)
        if not can_see_user_names(request):
            fields.remove("visitor")
        return fields

    @admin.display(description="Started", ordering="first_activity")
    def started(self, dialog):
        return dialog.first_activity.strftime("%Y-%m-%d %H:%M")

    @admin.display(description="Interactions", ordering="interaction_total")
    def interaction_count(self, dialog):
        return dialog.interaction_total

    @admin.display(description="Feedback")
    def feedback(self, dialog):
        return f"👍 {dialog.positive} · 👎 {dialog.negative}" if dialog.positive or dialog.negative else "—"

    @admin.display(description="State")
    def state(self, dialog):
        return "archived" if dialog.is_revoked() else "active"

    @admin.display(description="Variables")
    def variable_list(self, dialog):
        """The dialog's variables as context conditions read them (talk, chat/variable, answers, slots)."""
        variables = dialog.variables if isinstance(dialog.variables, dict) else {}
        if not variables:
            return "—"
        return format_html(
            '<table data-testid="dialog-variables" style="width:auto"><tbody>{}</tbody></table>',
            format_html_join(
                "",
                '<tr><th scope="row" style="padding-right:1rem"><code>{}</code></th><td>{}</td></tr>',
                (
                    (name, value if isinstance(value, str) else json.dumps(value))
                    for name, value in sorted(variables.items())
                ),
            ),
        )

    @admin.display(description="Conversation")
    def conversation(self, dialog):
        rows = Interaction.objects.filter(dialog=dialog).select_related("knowledge_item")
        return format_html(
            '<div style="max-width:60rem">{}</div>',
            format_html_join(
                "",
                '<div style="margin:.6rem 0"><div><b>{}</b> <small>{}</small></div>'
                '<div style="margin-left:1rem">{} <small style="color:#6e7781">[{}{}]</small></div></div>',
                (
                    (
                        interaction.user_input or "(event)",
                        interaction.created_at.strftime("%H:%M:%S"),
                        strip_tags(interaction.answer)[:2000],
                        interaction.type_response,
                        f" · feedback {interaction.feedback}" if interaction.feedback else "",
                    )
                    for interaction in rows
                ),
            ),
        )


@admin.register(GdprRequest)
class GdprRequestAdmin(BotScopedAdmin):
    list_display = ["created_at", "object", "mail", "client_id", "requester_ip", "status", "bot"]
    list_filter = ["bot", "object", "status"]
    search_fields = ["mail", "client_id"]
    readonly_fields = ["bot", "client_id", "mail", "object", "language", "requester_ip", "created_at"]
    actions = ["mark_sent"]

    def has_add_permission(self, request):
        return False

    # GDPR requests carry visitors' e-mail addresses: administrators only.
    def has_module_permission(self, request):
        return can_see_user_names(request) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return can_see_user_names(request) and super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return can_see_user_names(request) and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        if obj.status == GdprRequest.Status.IGNORED and not obj.reason.strip():
            messages.error(request, "Give the internal reason before ignoring a request; nothing was saved.")
            return
        super().save_model(request, obj, form, change)

    @admin.action(description="Mark the selected requests as sent")
    def mark_sent(self, request, queryset):
        updated = queryset.update(status=GdprRequest.Status.SENT)
        self.message_user(request, f"{updated} request(s) marked as sent.", messages.SUCCESS)


@admin.register(ClientError)
class ClientErrorAdmin(ReadOnlyLogAdmin):
    list_display = ["created_at", "error", "short_message", "browser", "bot"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter), "error", ("created_at", ByDate)]
    date_hierarchy = "created_at"
    list_select_related = ["bot"]
    readonly_fields = [field.name for field in ClientError._meta.fields]

    @admin.display(description="Message")
    def short_message(self, error):
        return error.message[:80]


# Surveys have their own back-office module (dialogs/surveys/admin.py).
from .surveys import admin as surveys_admin  # noqa: E402, F401
