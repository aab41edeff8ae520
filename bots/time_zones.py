"""The bot's time zone in the back office: pages that show one bot's data show its times in the bot's
time zone (`use_bot_time_zone`); `BotTimeZoneMiddleware` puts the default back after every request."""

import zoneinfo
from functools import cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def default_time_zone() -> str:
    """A new bot's time zone: the server's (settings.TIME_ZONE)."""
    return settings.TIME_ZONE


@cache
def time_zone_names() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in time_zone_names()]


def validate_time_zone(value: str) -> None:
    if value not in time_zone_names():
        raise ValidationError(
            _("'%(value)s' is not a time zone name such as Europe/Paris or UTC."), params={"value": value[:60]}
        )


def zone_of(bot) -> zoneinfo.ZoneInfo | None:
    return zone_named(getattr(bot, "time_zone", "") or "")


def zone_named(name: str) -> zoneinfo.ZoneInfo | None:
    try:
        return zoneinfo.ZoneInfo(name) if name else None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None  # a name the system no longer knows: the server's time zone


def use_bot_time_zone(request, bot) -> None:
    """Show this request's times (templates, `timezone.localtime`) in `bot`'s time zone."""
    _activate(request, zone_of(bot))


def use_common_time_zone(request, bots) -> None:
    """On a page listing several bots' rows: their time zone when they all share one, else the server's."""
    names = set(bots.values_list("time_zone", flat=True).distinct()[:2])
    if len(names) == 1:
        _activate(request, zone_named(names.pop()))


def _activate(request, zone) -> None:
    if zone is not None:
        timezone.activate(zone)
        request.bot_time_zone = zone


class BotTimeZoneMiddleware:
    """Every request starts in the server's time zone and leaves it so (a bot's zone never leaks to the
    next request served by the same thread)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
