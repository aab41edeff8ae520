"""The period of a dialogs export: `from` and `to` as ISO dates, ISO date-times or epoch milliseconds."""

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.utils import timezone

from bots.servlet.errors import InvalidField
from bots.servlet.params import ServletParams

FROM = ("from", "startDate", "start")
TO = ("to", "endDate", "end")
EPOCH_MS = re.compile(r"-?[0-9]{1,15}")
HOW = "use an ISO date (2026-11-01), an ISO date-time (2026-11-01T08:30:00Z) or epoch milliseconds"


@dataclass(frozen=True)
class Period:
    """Dialogs that started at or after `start` and before `end` (None: no bound)."""

    start: datetime | None = None
    end: datetime | None = None

    def as_json(self) -> dict:
        return {
            "from": self.start.isoformat() if self.start else None,
            "to": self.end.isoformat() if self.end else None,
        }


def period_from(params: ServletParams) -> Period:
    """The request's period; 400 naming the field when a bound cannot be read or `from` is after `to`."""
    start = moment(params.text(*FROM), "from", end=False)
    end = moment(params.text(*TO), "to", end=True)
    if start is not None and end is not None and start > end:
        raise InvalidField("to", f"the period ends ({end.isoformat()}) before it starts ({start.isoformat()})")
    return Period(start, end)


def moment(text: str, field: str, *, end: bool) -> datetime | None:
    """A bound of the period. A date alone means its whole day: `to=2026-11-30` includes the 30th."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        if EPOCH_MS.fullmatch(text):
            return datetime.fromtimestamp(int(text) / 1000, tz=UTC)
        if len(text) == 10:
            day = date.fromisoformat(text)
            if end:
                day += timedelta(days=1)
            return timezone.make_aware(datetime.combine(day, time.min))
        parsed = datetime.fromisoformat(text)
        if timezone.is_naive(parsed):
            parsed = timezone.make_aware(parsed)
        # Out of the database's range once shifted to UTC (year 1 with a positive offset).
        parsed.astimezone(UTC)
        return parsed
    except (ValueError, OverflowError, OSError):
        raise InvalidField(field, f"'{text[:40]}' is not a date; {HOW}") from None
