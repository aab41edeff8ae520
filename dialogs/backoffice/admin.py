"""The dialogs page (the Dialog changelist) and a dialog's transcript in bubbles (its change page):
qualification colours, unread in bold, filters, read / corrected marks; the visitor's id for those who may
see it (administrators)."""

import contextlib
import uuid

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

from accounts.permissions import can
from bots.admin_scoping import BotScopedAdmin, bots_of
from bots.time_zones import use_bot_time_zone

from ..models import Dialog, Interaction
from . import filters, marks, printing, qualification, transcript

ICON = '<span class="material-symbols-outlined text-sm align-[-3px]">{}</span>'
ICON_UP = format_html(ICON, "thumb_up")
ICON_DOWN = format_html(ICON, "thumb_down")
# Colours of the three qualifications (product-behaviour.md §4.1: dark green, light green, orange).
COLOURS = {
    qualification.DIRECT: "var(--color-green-700)",
    qualification.RECOVERED: "var(--color-green-300)",
    qualification.FAILED: "var(--color-orange-500)",
    qualification.NONE: "var(--color-base-300)",
}


def may_see_visitor(request) -> bool:
    """The visitor's id (clientId) is personal data: administrators only (product-behaviour.md §4.1)."""
    return request.user.has_perm("dialogs.view_visitor_id")


class Heading:
    """An object as the page header names it (the header shows str(original)): a date, not a raw id."""

    def __init__(self, obj, title: str):
        self._meta, self.pk, self.title = obj._meta, obj.pk, title

    def __str__(self):
        return self.title


def may_view(request) -> bool:
    """The sidebar's Dialogs entry (settings.UNFOLD): for those who may read dialogs."""
    return request.user.has_perm("dialogs.view_dialog")


def _count(**conditions):
    """Interactions of the dialog, counted in a subquery (no GROUP BY over the dialogs' columns)."""
    counted = (
        Interaction.objects.filter(dialog=OuterRef("pk"), **conditions)
        .order_by()
        .values("dialog")
        .annotate(total=Count("id"))
        .values("total")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


class DialogAdmin(BotScopedAdmin):
    list_display = [
        "started",
        "qualification_mark",
        "interaction_count",
        "language_name",
        "space_name",
        "feedback",
        "livechat_mark",
        "reading",
        "bot",
    ]
    list_display_links = ["started"]
    list_filter = [
        filters.PeriodFilter,
        ("first_activity", filters.StartedBetween),
        filters.QualificationFilter,
        filters.FeedbackFilter,
        filters.ReadingFilter,
        filters.SpaceFilter,
        filters.LanguageFilter,
        filters.LivechatFilter,
        filters.TestDialogFilter,
        ("bot", admin.RelatedOnlyFieldListFilter),
    ]
    list_filter_submit = True
    list_per_page = 50
    search_fields = ["interactions__user_input"]  # shows the search box; get_search_results searches
    search_help_text = _("Search the visitors' words.")
    actions = ["mark_read", "mark_unread", "mark_corrected", "mark_not_corrected"]

    def get_queryset(self, request):
        dialogs = super().get_queryset(request).select_related("bot")
        dialogs = qualification.annotate(dialogs)
        return dialogs.annotate(
            interaction_total=_count(),
            positive=_count(feedback=Interaction.Feedback.POSITIVE),
            negative=_count(feedback=Interaction.Feedback.NEGATIVE),
        )

    def get_list_display(self, request):
        columns = list(super().get_list_display(request))
        if may_see_visitor(request):
            columns.insert(1, "visitor")
        if not self._several_bots(request):
            columns.remove("bot")
        return columns

    def get_list_filter(self, request):
        found = list(super().get_list_filter(request))
        return found if self._several_bots(request) else found[:-1]  # the bot filter goes last

    def _several_bots(self, request) -> bool:
        """Whether the user's dialogs may come from more than one bot (the bot column and filter then show)."""
        if not hasattr(request, "_dialogs_several_bots"):
            request._dialogs_several_bots = bots_of(request.user)[:2].count() > 1
        return request._dialogs_several_bots

    def get_search_results(self, request, queryset, search_term):
        """The visitors' words (an EXISTS per dialog, not a join: no DISTINCT over the annotated rows);
        for those who may see them, a visitor's id or a context id too."""
        term = search_term.strip()[:200]
        if not term:
            return queryset, False
        matches = Q(Exists(Interaction.objects.filter(dialog=OuterRef("pk"), user_input__icontains=term)))
        if may_see_visitor(request):
            matches |= Q(client_id=term)
            with contextlib.suppress(ValueError):
                matches |= Q(uuid=uuid.UUID(term))
        return queryset.filter(matches), False

    def has_add_permission(self, request):
        return False

    # The list: unread dialogs in bold.
    def _cell(self, dialog, text):
        if dialog.read_at is None:
            return format_html('<strong class="font-semibold text-important" data-unread="1">{}</strong>', text)
        return text

    @admin.display(description=_("Started"), ordering="first_activity")
    def started(self, dialog):
        started = timezone.localtime(dialog.first_activity)
        return self._cell(
            dialog,
            format_html('<span class="whitespace-nowrap">{}</span>', date_format(started, "SHORT_DATETIME_FORMAT")),
        )

    @admin.display(description=_("Visitor"))
    def visitor(self, dialog):
        return self._cell(dialog, dialog.client_id or _t("anonymous"))

    @admin.display(description=_("Qualification"), ordering="qualification")
    def qualification_mark(self, dialog):
        return format_html(
            '<span class="dialog-qualification" data-qualification="{}" title="{}" style="display:inline-flex;'
            'align-items:center;gap:6px"><span style="width:12px;height:12px;border-radius:50%;background:{};'
            'display:inline-block;flex:none"></span>{}</span>{}',
            dialog.qualification,
            qualification.LABELS[dialog.qualification],
            COLOURS[dialog.qualification],
            self._cell(dialog, qualification.LABELS[dialog.qualification]),
            format_html(' <span class="text-xs text-orange-700">({})</span>', _t("test"))
            if dialog.qualification_mode
            else "",
        )

    @admin.display(description=_("Interactions"), ordering="interaction_total")
    def interaction_count(self, dialog):
        return self._cell(dialog, dialog.interaction_total)

    @admin.display(description=_("Language"), ordering="language")
    def language_name(self, dialog):
        return self._cell(dialog, filters.language_name(dialog.language))

    @admin.display(description=_("Space"), ordering="space")
    def space_name(self, dialog):
        return self._cell(dialog, filters.space_name(dialog.space))

    @admin.display(description=_("Feedback"))
    def feedback(self, dialog):
        if not dialog.positive and not dialog.negative:
            return "—"
        return format_html(
            '<span class="whitespace-nowrap"><span title="{}" class="text-green-700">{}&nbsp;{}</span>&ensp;'
            '<span title="{}" class="text-red-700">{}&nbsp;{}</span></span>',
            _t("Useful"),
            ICON_UP,
            dialog.positive,
            _t("Not useful"),
            ICON_DOWN,
            dialog.negative,
        )

    @admin.display(description=_("Live chat"))
    def livechat_mark(self, dialog):
        if not dialog.went_livechat:
            return "—"
        return format_html(
            '<span title="{}" data-livechat="1">{}</span>',
            _t("Went to live chat"),
            format_html('<span class="material-symbols-outlined text-primary-600">{}</span>', "support_agent"),
        )

    @admin.display(description=_("Status"))
    def reading(self, dialog):
        if dialog.corrected_at is not None:
            return format_html('<span class="dialog-status" data-status="corrected">{}</span>', _t("Corrected"))
        if dialog.read_at is not None:
            return format_html('<span class="dialog-status" data-status="read">{}</span>', _t("Read"))
        return format_html(
            '<strong class="dialog-status font-semibold text-important" data-status="unread">{}</strong>', _t("Unread")
        )

    # Marks on a selection of dialogs (the list's actions).
    @admin.action(description=_("Mark as read"), permissions=["view"])
    def mark_read(self, request, queryset):
        self._marked(request, marks.set_read(self._plain(queryset), request.user, True))

    @admin.action(description=_("Mark as unread"), permissions=["change"])
    def mark_unread(self, request, queryset):
        self._marked(request, marks.set_read(self._plain(queryset), request.user, False))

    @admin.action(description=_("Mark as corrected"), permissions=["change"])
    def mark_corrected(self, request, queryset):
        self._marked(request, marks.set_corrected(self._plain(queryset), request.user, True))

    @admin.action(description=_("Mark as not corrected"), permissions=["change"])
    def mark_not_corrected(self, request, queryset):
        self._marked(request, marks.set_corrected(self._plain(queryset), request.user, False))

    def _plain(self, queryset):
        # An UPDATE needs no annotation: the selected ids are enough (and stay in the user's scope).
        return Dialog.objects.filter(pk__in=queryset.values("pk"))

    def _marked(self, request, count):
        self.message_user(request, _t("%(count)d dialog(s) marked.") % {"count": count}, messages.SUCCESS)

    def get_urls(self):
        printable = path(
            "<int:object_id>/print/", self.admin_site.admin_view(self.print_view), name="dialogs_dialog_print"
        )
        return [printable, *super().get_urls()]

    def print_view(self, request, object_id):
        """The dialog's printable transcript with its staff notes (the same rights as its page)."""
        dialog = get_object_or_404(self.get_queryset(request), pk=object_id)
        if not self.has_view_permission(request, dialog):
            raise PermissionDenied
        use_bot_time_zone(request, dialog.bot)
        return printing.staff_transcript(request, dialog)

    # A dialog's page: its transcript. Opening it marks it read.
    def change_view(self, request, object_id, form_url="", extra_context=None):
        dialog = get_object_or_404(self.get_queryset(request), pk=object_id)
        if not self.has_view_permission(request, dialog):
            raise PermissionDenied
        use_bot_time_zone(request, dialog.bot)  # times in the bot's time zone
        if request.method == "POST":
            return self._mark_from_page(request, dialog)
        marks.mark_read(dialog, request.user)
        title = _t("Dialog of %(date)s") % {
            "date": date_format(timezone.localtime(dialog.first_activity), "SHORT_DATETIME_FORMAT")
        }
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "original": Heading(dialog, title),
            "dialog": dialog,
            "bubbles": transcript.bubbles(dialog),
            "variables": transcript.variables(dialog),
            "qualification": qualification.LABELS[dialog.qualification],
            "colour": COLOURS[dialog.qualification],
            "language": filters.language_name(dialog.language),
            "space": filters.space_name(dialog.space),
            "show_visitor": may_see_visitor(request),
            "may_mark": self.has_change_permission(request, dialog),
            "may_download": can(request.user, "livechat.operate", bot=dialog.bot),
            "list_url": reverse("admin:dialogs_dialog_changelist"),
            "print_url": reverse("admin:dialogs_dialog_print", args=[dialog.pk]),
        }
        return TemplateResponse(request, "admin/dialogs/dialog/transcript.html", context)

    def _mark_from_page(self, request, dialog):
        if not self.has_change_permission(request, dialog):
            raise PermissionDenied
        action = request.POST.get("mark", "")
        one = Dialog.objects.filter(pk=dialog.pk)
        if action == "corrected":
            marks.set_corrected(one, request.user, True)
            self.message_user(request, _t("The dialog is marked corrected."), messages.SUCCESS)
        elif action == "not_corrected":
            marks.set_corrected(one, request.user, False)
            self.message_user(request, _t("The dialog is no longer marked corrected."), messages.SUCCESS)
        elif action == "unread":
            marks.set_read(one, request.user, False)
            self.message_user(request, _t("The dialog is marked unread."), messages.SUCCESS)
            # Back to the list: opening the dialog again would mark it read.
            return HttpResponseRedirect(reverse("admin:dialogs_dialog_changelist"))
        else:
            self.message_user(request, _t("Unknown action: nothing was changed."), messages.ERROR)
        return HttpResponseRedirect(request.path)
