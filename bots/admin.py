"""Back office: bots with their languages and consultation spaces (dialogs adds the daily cap of conversations sent
by e-mail), and their server errors (read-only)."""

from collections.abc import Callable
from typing import ClassVar

from django.contrib import admin
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from unfold.admin import TabularInline
from unfold.widgets import UnfoldAdminSelect2Widget

from .admin_scoping import BotScopedAdmin
from .language_labels import language_label
from .logs.backoffice import ServerErrorAdmin
from .models import Bot, BotLanguage, ServerError, Space
from .time_zones import time_zone_choices


class BotLanguageInline(TabularInline):
    model = BotLanguage
    extra = 0
    hide_title = True  # a row's title would repeat its code


class SpaceInline(TabularInline):
    model = Space
    extra = 0
    hide_title = True


@admin.register(Bot)
class BotAdmin(BotScopedAdmin):
    bot_path = "pk"
    list_display = ["name", "uuid", "account", "default_language", "items", "try_it"]
    list_filter = ["account", "default_language"]
    search_fields = ["name", "uuid"]
    readonly_fields = ["uuid", "knowledge_version", "created_at", "api_access", "learning", "knowledge_base"]
    fieldsets = [
        (None, {"fields": ["name", "uuid", "account", "api_access", "learning", "knowledge_base"]}),
        (_("Dialog"), {"fields": ["default_language", "language_detection", "too_many_misunderstood", "time_zone"]}),
        # dialogs/transcript/mail_cap.py adds "Export by e-mail" (the daily cap of conversations sent by e-mail)
        # before the internals, and registers the bot's admin with it (dialogs/admin.py).
        (_("Internals"), {"classes": ["collapse"], "fields": ["knowledge_version", "created_at"]}),
    ]
    inlines = [BotLanguageInline, SpaceInline]
    # The "test the bot" box under the form (dialogs/backoffice/testbot.py answers it, dialogs/admin.py adds its URL).
    change_form_outer_after_template = "knowledge/backoffice/test_bot.html"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        bot = self.get_object(request, object_id)
        languages = [(code, language_label(code)) for code in bot.language_codes()] if bot else []
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), "test_languages": languages})

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "time_zone":  # an IANA zone picked from a searchable list (bots/time_zones.py)
            kwargs["widget"] = UnfoldAdminSelect2Widget(choices=time_zone_choices())
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    # Pages a higher app adds under a bot, registered by that app (dialogs/admin.py: the test box) so that bots,
    # the ground floor, imports none of them: (route, view factory given this admin, URL name).
    bot_pages: ClassVar[list[tuple[str, Callable, str]]] = []

    def get_urls(self):
        pages = [path(route, self.admin_site.admin_view(view(self)), name=name) for route, view, name in self.bot_pages]
        return [*pages, *super().get_urls()]

    def get_queryset(self, request):
        queryset = admin.ModelAdmin.get_queryset(self, request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(account__members__user=request.user)

    @admin.display(description=_("Knowledge items"))
    def items(self, bot):
        return bot.knowledge_items.count()

    @admin.display(description=_("Try it"))
    def try_it(self, bot):
        return format_html(
            '<a href="{}?bot={}" target="_blank">{}</a>', reverse("demo-chat"), bot.uuid, gettext("Demo chat")
        )

    @admin.display(description=_("API access"))
    def api_access(self, bot):
        if not bot.pk:
            return "-"
        return format_html(
            'botUUID <code>{}</code> · <a href="{}">{}</a> · <a href="{}" target="_blank">{}</a> · '
            '<a href="/servlet/authentication.html" target="_blank">{}</a>',
            bot.uuid,
            reverse("admin:accounts_botapiaccess_change", args=[bot.pk]),
            gettext("API access"),
            reverse("api-console"),
            gettext("API console"),
            gettext("Get a token"),
        )

    @admin.display(description=_("Learning"))
    def learning(self, bot):
        """The bot's misunderstood questions page (dialogs/learning/)."""
        if not bot.pk:
            return "-"
        return format_html(
            '<a href="{}">{}</a> · <a href="{}?bot__id__exact={}">{}</a>',
            reverse("admin:knowledge_misunderstoodinput_changelist") + f"?bot={bot.pk}",
            gettext("Misunderstood questions"),
            reverse("admin:knowledge_ignoredgroup_changelist"),
            bot.pk,
            gettext("Ignored questions"),
        )

    @admin.display(description=_("Knowledge base"))
    def knowledge_base(self, bot):
        """The bot's import / export page (knowledge/backoffice/exchange.py): every role may export (knowledge.read)."""
        if not bot.pk:
            return "-"
        return format_html(
            '<a href="{}" data-testid="bot-kb-exchange">{}</a>',
            reverse("admin:knowledge_exchange", args=[bot.pk]),
            gettext("Import, export or delete the knowledge base"),
        )


admin.site.register(ServerError, ServerErrorAdmin)
