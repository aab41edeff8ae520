"""The analytics page's Chart.js data (drawn by django-unfold's chart components): one point per day,
or per month over long periods (more than 100 days, as the product shows them; the CSV keeps the days)."""

import json
from dataclasses import dataclass, field
from datetime import date

from django.utils.translation import gettext as _

from .report import Day, Report

MONTHLY_ABOVE_DAYS = 100
AXIS = "#9ca3af"


@dataclass
class Bucket:
    label: str
    days: list[Day] = field(default_factory=list)

    def total(self, name: str) -> int:
        return sum(getattr(day, name) for day in self.days)


def buckets(report: Report) -> list[Bucket]:
    if len(report.days) <= MONTHLY_ABOVE_DAYS:
        return [Bucket(_day_label(day.day), [day]) for day in report.days]
    months: dict[tuple[int, int], Bucket] = {}
    for day in report.days:
        key = (day.day.year, day.day.month)
        months.setdefault(key, Bucket(f"{day.day:%Y-%m}")).days.append(day)
    return list(months.values())


def _day_label(day: date) -> str:
    return f"{day:%Y-%m-%d}"


def _options(*, stacked: bool = False) -> str:
    """Chart.js options in unfold's look (its defaults are replaced whole when options are given)."""
    axis = {
        "stacked": stacked,
        "border": {"dash": [5, 5], "width": 0},
        "grid": {"display": False, "tickWidth": 0},
        "ticks": {"color": AXIS, "maxTicksLimit": 10, "maxRotation": 0},
    }
    return json.dumps(
        {
            "animation": False,
            "responsive": True,
            "maintainAspectRatio": False,
            "datasets": {
                "bar": {"borderRadius": 4, "maxBarThickness": 18, "categoryPercentage": 0.8},
                "line": {"borderWidth": 2, "pointRadius": 3, "fill": False},
            },
            "plugins": {
                "legend": {
                    "display": True,
                    "align": "end",
                    "position": "top",
                    "labels": {"boxHeight": 6, "boxWidth": 6, "color": AXIS, "usePointStyle": True},
                },
                "tooltip": {"enabled": True},
            },
            "scales": {
                "x": axis,
                "y": {
                    **axis,
                    "beginAtZero": True,
                    "grid": {"display": True, "tickWidth": 0},
                    "ticks": {"color": AXIS, "precision": 0},
                },
            },
        }
    )


def _chart(points: list[Bucket], series: list[tuple[str, str, str]], *, stacked: bool = False) -> dict:
    """A chart's data and options: one dataset per (label, Day field, CSS colour) of `series`."""
    datasets = [
        {
            "label": label,
            "data": [point.total(name) for point in points],
            "backgroundColor": color,
            "borderColor": color,
        }
        for label, name, color in series
    ]
    data = {"labels": [point.label for point in points], "datasets": datasets}
    return {"data": json.dumps(data), "options": _options(stacked=stacked)}


def charts(report: Report) -> dict[str, dict]:
    points = buckets(report)
    return {
        "activity": _chart(
            points,
            [
                (_("Dialogs"), "dialogs", "var(--color-primary-600)"),
                (_("Interactions"), "interactions", "var(--color-primary-300)"),
            ],
        ),
        "outcomes": _chart(
            points,
            [
                (_("Only direct answers"), "dialogs_direct", "var(--color-green-500)"),
                (_("Answered after misunderstandings"), "dialogs_recovered", "var(--color-green-300)"),
                (_("Ended misunderstood"), "dialogs_failed", "var(--color-orange-400)"),
            ],
            stacked=True,
        ),
        "answers": _chart(
            points,
            [
                (_("Understood"), "understood", "var(--color-green-500)"),
                (_("Reworded"), "reworded", "var(--color-orange-400)"),
                (_("Misunderstood"), "misunderstood", "var(--color-red-500)"),
            ],
            stacked=True,
        ),
        "livechat": _chart(
            points,
            [
                (_("Taken by an operator"), "livechat_taken", "var(--color-green-500)"),
                (_("Not taken"), "livechat_not_taken", "var(--color-orange-400)"),
            ],
            stacked=True,
        ),
    }
