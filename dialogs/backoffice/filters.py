"""The dialogs page's filters: period (quick choices and a range with hours), qualification, feedback,
reading marks, space, language, live chat and test dialogs (qualification mode)."""

from datetime import datetime, time, timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import get_language_info
from django.utils.translation import gettext_lazy as _
from unfold.contrib.filters.admin import DropdownFilter, RangeDateTimeFilter
from unfold.utils import parse_datetime_str

from bots.admin_scoping import bots_of
from bots.models import DEFAULT_SPACE_ALIASES

from ..models import Dialog, Interaction
from . import qualification


class StartedBetween(RangeDateTimeFilter):
    """A range of dates and hours in the current time zone; a day given without its hour counts whole
    (from 00:00, to 23:59:59). A date or hour that cannot be read leaves the list unfiltered (the form
    shows it as given)."""

    def __init__(self, field, request, params, model, model_admin, field_path):
        super().__init__(field, request, params, model, model_admin, field_path)
        self.title = _("start, between")
        for end, default in (("from", "00:00"), ("to", "23:59:59")):
            day = self.used_parameters.get(f"{self.parameter_name}_{end}_0")
            if day and not self.used_parameters.get(f"{self.parameter_name}_{end}_1"):
                self.used_parameters[f"{self.parameter_name}_{end}_1"] = default

    def queryset(self, request, queryset):
        bounds = {}
        for end, lookup in (("from", "gte"), ("to", "lte")):
            day = self.used_parameters.get(f"{self.parameter_name}_{end}_0")
            if not day:
                continue
            moment = _moment(day, self.used_parameters.get(f"{self.parameter_name}_{end}_1"))
            if moment is None:
                return None
            bounds[f"{self.parameter_name}__{lookup}"] = moment
        return queryset.filter(**bounds)


def _moment(day: str, hour: str) -> datetime | None:
    """The date and hour as the form sends them (local formats accepted), in the current time zone."""
    try:
        moment = parse_datetime_str(f"{day} {hour}")
    except (ValueError, TypeError):
        return None
    if moment is None:
        return None
    return timezone.make_aware(moment) if timezone.is_naive(moment) else moment


class PeriodFilter(DropdownFilter):
    title = _("period")
    parameter_name = "period"

    def lookups(self, request, model_admin):
        return [
            ("today", _("Today")),
            ("yesterday", _("Yesterday")),
            ("7days", _("Last 7 days")),
            ("30days", _("Last 30 days")),
            ("month", _("This month")),
            ("lastmonth", _("Last month")),
        ]

    def queryset(self, request, queryset):
        bounds = period_bounds(self.value(), timezone.localdate())
        if bounds is None:
            return queryset
        start, end = (timezone.make_aware(datetime.combine(day, time.min)) for day in bounds)
        return queryset.filter(first_activity__gte=start, first_activity__lt=end)


def period_bounds(name, today):
    """The period's first day and the day after its last, in the current time zone's calendar."""
    first_of_month = today.replace(day=1)
    periods = {
        "today": (today, today + timedelta(days=1)),
        "yesterday": (today - timedelta(days=1), today),
        "7days": (today - timedelta(days=6), today + timedelta(days=1)),
        "30days": (today - timedelta(days=29), today + timedelta(days=1)),
        "month": (first_of_month, today + timedelta(days=1)),
        "lastmonth": ((first_of_month - timedelta(days=1)).replace(day=1), first_of_month),
    }
    return periods.get(name)


class QualificationFilter(DropdownFilter):
    title = _("qualification")
    parameter_name = "qualification"

    def lookups(self, request, model_admin):
        return list(qualification.LABELS.items())

    def queryset(self, request, queryset):
        if self.value() in qualification.LABELS:
            return queryset.filter(qualification=self.value())
        return queryset


class FeedbackFilter(DropdownFilter):
    title = _("feedback")
    parameter_name = "feedback"
    VALUES = ("positive", "negative", "withoutAnswer")

    def lookups(self, request, model_admin):
        return [
            ("any", _("Some feedback")),
            ("positive", _("Useful")),
            ("negative", _("Not useful")),
            ("withoutAnswer", _("Left without answering")),
            ("comment", _("With a comment")),
            ("none", _("No feedback")),
        ]

    def queryset(self, request, queryset):
        given = Interaction.objects.filter(dialog=OuterRef("pk")).exclude(feedback="")
        value = self.value()
        if value == "any":
            return queryset.filter(Exists(given))
        if value == "none":
            return queryset.exclude(Exists(given))
        if value == "comment":
            return queryset.filter(
                Exists(Interaction.objects.filter(dialog=OuterRef("pk")).exclude(feedback_comment=""))
            )
        if value in self.VALUES:
            return queryset.filter(Exists(given.filter(feedback=value)))
        return queryset


class ReadingFilter(DropdownFilter):
    title = _("status")
    parameter_name = "reading"

    def lookups(self, request, model_admin):
        return [
            ("unread", _("Unread")),
            ("read", _("Read")),
            ("corrected", _("Corrected")),
            ("uncorrected", _("Not corrected")),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "unread":
            return queryset.filter(read_at__isnull=True)
        if value == "read":
            return queryset.filter(read_at__isnull=False)
        if value == "corrected":
            return queryset.filter(corrected_at__isnull=False)
        if value == "uncorrected":
            return queryset.filter(corrected_at__isnull=True)
        return queryset


class _ValuesFilter(DropdownFilter):
    """A filter on one of the dialog's plain columns, offering the values the user's dialogs have."""

    column = ""

    def lookups(self, request, model_admin):
        values = (
            Dialog.objects.filter(bot__in=bots_of(request.user))
            .order_by(self.column)
            .values_list(self.column, flat=True)
            .distinct()
        )
        return [(value or "-", self.label(value)) for value in values]

    def label(self, value):
        return value

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(**{self.column: "" if value == "-" else value})


class SpaceFilter(_ValuesFilter):
    title = _("space")
    parameter_name = "space"
    column = "space"

    def label(self, value):
        return space_name(value)


class LanguageFilter(_ValuesFilter):
    title = _("language")
    parameter_name = "language"
    column = "language"

    def label(self, value):
        return language_name(value)


class LivechatFilter(DropdownFilter):
    title = _("live chat")
    parameter_name = "livechat"

    def lookups(self, request, model_admin):
        return [("yes", _("Went to live chat")), ("no", _("Bot only"))]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(went_livechat=self.value() == "yes")
        return queryset


class TestDialogFilter(DropdownFilter):
    title = _("qualification mode")
    parameter_name = "test"

    def lookups(self, request, model_admin):
        return [("no", _("Visitors' dialogs")), ("yes", _("Test dialogs (qualification mode)"))]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(qualification_mode=self.value() == "yes")
        return queryset


def space_name(value: str) -> str:
    return str(_("Default space")) if (value or "").lower() in DEFAULT_SPACE_ALIASES else value


def language_name(code: str) -> str:
    try:
        return str(get_language_info(code)["name_translated"])
    except KeyError:
        return code or "—"
