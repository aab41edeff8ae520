"""Back office for live chat: operators (availability, dialog limit, competencies), each bot's live-chat
settings, opening hours per competency, the live-chat requests (who waited, who answered, how it ended)
and the callbacks."""

from django.contrib import admin
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from unfold.admin import TabularInline
from unfold.widgets import UnfoldAdminSelect2Widget

from accounts.admin import AccountScopedAdmin, MadeElsewhere
from bots.admin_scoping import BotScopedAdmin, account_id_of
from bots.time_zones import time_zone_choices

from . import hours
from .models import Callback, LivechatRequest, LivechatSettings, OpeningHours, OpeningSlot, Operator
from .presence import is_online


@admin.register(Operator)
class OperatorAdmin(AccountScopedAdmin):
    """Operators' profiles: everyone of the account reads them; supervisors (livechat.operator's change
    permission, livechat.supervise) change availability, limits and competencies."""

    list_display = ["name", "login", "presence", "load", "competency_list"]
    list_filter = ["status", "competencies"]
    search_fields = ["display_name", "user__username", "user__first_name"]
    fields = [
        "user",
        "account",
        "display_name",
        "status",
        "max_dialogs",
        "competencies",
        "active_dialogs",
        "last_seen_at",
        "status_changed_at",
    ]
    readonly_fields = ["user", "account", "active_dialogs", "last_seen_at", "status_changed_at"]
    filter_horizontal = ["competencies"]
    list_select_related = ["user"]

    def has_add_permission(self, request):
        return False  # a profile is made when the operator first opens the console (or by the API)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    @admin.display(description=_("Login"), ordering="user__username")
    def login(self, operator):
        return operator.user.get_username()

    @admin.display(description=_("Availability"))
    def presence(self, operator):
        shown = operator.status if is_online(operator) else Operator.Status.OFFLINE
        colours = {"available": "#16a34a", "busy": "#d97706", "away": "#6b7280", "offline": "#9ca3af"}
        return format_html('<span style="color:{}">●</span> {}', colours[shown], Operator.Status(shown).label)

    @admin.display(description=_("Dialogs held"))
    def load(self, operator):
        return f"{operator.active_dialogs} / {operator.max_dialogs}"

    @admin.display(description=_("Competencies"))
    def competency_list(self, operator):
        return ", ".join(sorted(c.name for c in operator.competencies.all())) or "—"


@admin.register(LivechatSettings)
class LivechatSettingsAdmin(BotScopedAdmin):
    """Each bot's live-chat settings: everyone of the account reads them; supervisors change them."""

    # Every value in force on one 1366 px screen: the timeouts share a column, one per line.
    list_display = ["bot", "enabled", "on_misunderstood", "queue_places", "timeouts", "callback_offered"]

    @admin.display(description=_("Hand over when misunderstood"), boolean=True)
    def on_misunderstood(self, rules):
        return rules.handover_on_too_many_misunderstood

    @admin.display(description=_("Queue places per operator"), ordering="queue_per_operator")
    def queue_places(self, rules):
        return rules.queue_per_operator

    @admin.display(description=_("Callback offered"), boolean=True)
    def callback_offered(self, rules):
        return rules.offer_callback

    @admin.display(description=_("Timeouts"))
    def timeouts(self, rules):
        gone = rules.visitor_gone_seconds
        lines = [
            (_("queue"), f"{rules.queue_timeout_seconds} s"),
            (_("silent visitor"), f"{rules.visitor_timeout_seconds} s"),
            (_("warned before"), f"{rules.visitor_warning_seconds} s"),
            (_("silent operator"), f"{rules.operator_timeout_seconds} s"),
            (_("visitor gone"), f"{gone} s" if gone else _("never")),  # 0: the grace time is off
        ]
        return format_html_join(
            "",
            '<div class="whitespace-nowrap">{}</div>',
            ((_("%(kind)s: %(name)s") % {"kind": label, "name": value},) for label, value in lines),
        )

    def has_add_permission(self, request):
        return False  # each bot's row is made with the bot (livechat/settings_rows.py)

    def has_delete_permission(self, request, obj=None):
        return False  # a bot without its row would hide the values in force again

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        """Each setting's help says its default, so a changed value can be put back."""
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None and db_field.has_default() and db_field.name != "id":
            default = db_field.get_default()
            shown = (_("yes") if default else _("no")) if isinstance(default, bool) else default
            field.help_text = format_lazy("{} {}", field.help_text, _("Default: %(value)s.") % {"value": shown})
        return field


class OpeningSlotInline(TabularInline):
    model = OpeningSlot
    fields = ["weekday", "opens", "closes"]
    extra = 0

    def get_extra(self, request, obj=None, **kwargs):
        return 5 if obj is None else 0  # a new schedule: Monday to Friday's lines ready to fill


@admin.register(OpeningHours)
class OpeningHoursAdmin(AccountScopedAdmin):
    """When operators answer, per competency (or the whole team's): outside them a visitor asking for a
    human is told when it opens and offered a callback. Everyone of the account reads them; supervisors
    change them."""

    list_display = ["__str__", "openings", "time_zone", "open_now"]
    list_select_related = ["competency"]
    fields = ["account", "competency", "time_zone"]
    inlines = [OpeningSlotInline]

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("account", account_id_of(request.user))
        return initial

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "time_zone":  # an IANA zone picked from a searchable list (bots/time_zones.py)
            kwargs["widget"] = UnfoldAdminSelect2Widget(choices=time_zone_choices())
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("slots")

    @admin.display(description=_("Openings"))
    def openings(self, schedule):
        return ", ".join(str(slot) for slot in schedule.slots.all()) or "—"

    @admin.display(description=_("Open now"), boolean=True)
    def open_now(self, schedule):
        return hours.open_now(schedule.account_id, now=timezone.now(), schedule=schedule)


@admin.register(LivechatRequest)
class LivechatRequestAdmin(MadeElsewhere, AccountScopedAdmin):
    """Every handover: the queue and the operators' work, for reading (the console does the work)."""

    list_display = ["created_at", "status", "operator", "waited", "duration", "end_reason", "dialog_link"]
    list_filter = ["status", "end_reason", "bot", "competency"]
    date_hierarchy = "created_at"
    list_select_related = ["bot", "operator__user", "competency", "dialog"]
    readonly_fields = [field.name for field in LivechatRequest._meta.fields]

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("Waited"))
    def waited(self, request):
        if request.assigned_at is None:
            return "—"
        return f"{int((request.assigned_at - request.queued_at).total_seconds())} s"

    @admin.display(description=_("With the operator"))
    def duration(self, request):
        if request.assigned_at is None or request.ended_at is None:
            return "—"
        minutes, seconds = divmod(int((request.ended_at - request.assigned_at).total_seconds()), 60)
        return f"{minutes} min {seconds:02d} s"

    @admin.display(description=_("Dialog"))
    def dialog_link(self, request):
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:dialogs_dialog_change", args=[request.dialog_id]), _("read")
        )


@admin.register(Callback)
class CallbackAdmin(AccountScopedAdmin):
    """Callbacks asked by visitors: those who operate (livechat.callback's change permission) take them."""

    account_path = "bot__account"
    list_display = ["created_at", "bot", "phone", "name", "preferred_time", "status", "operator", "source"]
    list_filter = ["status", "source", "bot"]
    search_fields = ["phone", "name", "reason"]
    readonly_fields = ["bot", "dialog", "source", "created_at", "taken_at", "closed_at", "operator"]
    fields = [
        "bot",
        "dialog",
        "phone",
        "name",
        "preferred_time",
        "reason",
        "language",
        "source",
        "status",
        "operator",
        "outcome",
        "created_at",
        "taken_at",
        "closed_at",
    ]

    def has_add_permission(self, request):
        return False  # asked by visitors and telephony through the Callback servlet
