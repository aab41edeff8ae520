"""The analytics page's choice of bot and period: the spec's named periods (as top knowledge reads them)
or a custom range of days, turned into [start, end) in the bot's time zone and the list of its days."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from bots.time_zones import zone_of
from dialogs.topknowledge import period_bounds

CUSTOM = "Custom"
DEFAULT_PERIOD = "Last30Days"
# A custom range is at most this many days: the page draws one point per day.
MAX_DAYS = 366
PERIOD_LABELS = {
    "Today": _("Today"),
    "Yesterday": _("Yesterday"),
    "Last7Days": _("Last 7 days"),
    "CurrentMonth": _("Current month"),
    "LastMonth": _("Last month"),
    "Last30Days": _("Last 30 days"),
    "Last3Months": _("Last 3 months"),
    "Last6Months": _("Last 6 months"),
    "Last12Months": _("Last 12 months"),
    CUSTOM: _("Custom range"),
}


def bot_timezone(bot) -> tzinfo:
    """The bot's own time zone (Bot.time_zone), else the server's (settings.TIME_ZONE)."""
    return zone_of(bot) or ZoneInfo(settings.TIME_ZONE)


@dataclass(frozen=True)
class Window:
    """A period resolved for one bot: aware bounds [start, end) and the calendar days they touch."""

    period: str
    start: datetime
    end: datetime
    tz: tzinfo

    @property
    def days(self) -> list[date]:
        first = timezone.localtime(self.start, self.tz).date()
        # The end is excluded: a period ending at midnight does not touch that day.
        last = max(first, timezone.localtime(self.end - timedelta(microseconds=1), self.tz).date())
        return [first + timedelta(days=n) for n in range((last - first).days + 1)]

    @property
    def label(self) -> str:
        days = self.days
        return f"{days[0]:%Y-%m-%d} – {days[-1]:%Y-%m-%d}" if days else ""


class PeriodForm(forms.Form):
    """The page's filters; the bot's choices are the user's bots only."""

    bot = forms.ModelChoiceField(queryset=None, label=_("Bot"), empty_label=None)
    period = forms.ChoiceField(
        label=_("Period"), choices=[(key, label) for key, label in PERIOD_LABELS.items()], initial=DEFAULT_PERIOD
    )
    start = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, data, *, bots):
        super().__init__(data)
        self.fields["bot"].queryset = bots

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("period") != CUSTOM:
            return cleaned
        start, end = cleaned.get("start"), cleaned.get("end")
        if start is None:
            self.add_error("start", _("Give the first day of the custom range."))
        if end is None:
            self.add_error("end", _("Give the last day of the custom range."))
        if start and end:
            if end < start:
                self.add_error("end", _("The last day comes before the first day."))
            elif (end - start).days + 1 > MAX_DAYS:
                self.add_error("end", _("A custom range is at most %(days)d days.") % {"days": MAX_DAYS})
        return cleaned

    def window(self, now: datetime | None = None) -> Window:
        """The resolved period of a valid form, in the chosen bot's time zone."""
        bot, period = self.cleaned_data["bot"], self.cleaned_data["period"]
        tz = bot_timezone(bot)
        if period == CUSTOM:
            start = datetime.combine(self.cleaned_data["start"], time.min, tzinfo=tz)
            end = datetime.combine(self.cleaned_data["end"] + timedelta(days=1), time.min, tzinfo=tz)
            return Window(period, start, end, tz)
        # period_bounds counts days in the active time zone: the bot's, here.
        with timezone.override(tz):
            start, end = period_bounds(period, now)
        return Window(period, start, end, tz)
