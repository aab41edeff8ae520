"""Top knowledge periods: each name covers the right stretch of time, and usage outside it is not counted."""

import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from dialogs.models import Interaction
from dialogs.topknowledge import PERIODS, period_bounds

UTC = ZoneInfo("UTC")
NOW = datetime(2026, 3, 15, 10, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "period,start,end",
    [
        ("Today", datetime(2026, 3, 15, tzinfo=UTC), NOW),
        ("Yesterday", datetime(2026, 3, 14, tzinfo=UTC), datetime(2026, 3, 15, tzinfo=UTC)),
        ("Last7Days", NOW - timedelta(days=7), NOW),
        ("CurrentMonth", datetime(2026, 3, 1, tzinfo=UTC), NOW),
        ("LastMonth", datetime(2026, 2, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)),
        ("Last30Days", NOW - timedelta(days=30), NOW),
        ("Last12Months", NOW - timedelta(days=365), NOW),
        ("last7days", NOW - timedelta(days=7), NOW),  # any case
    ],
)
def test_period_bounds(period, start, end):
    assert period_bounds(period, NOW) == (start, end)


def test_every_period_of_the_spec_is_known():
    assert set(PERIODS) == {
        "Today",
        "Yesterday",
        "Last7Days",
        "CurrentMonth",
        "LastMonth",
        "Last30Days",
        "Last3Months",
        "Last6Months",
        "Last12Months",
    }


@pytest.mark.django_db
def test_usage_older_than_the_period_is_not_counted(chatbox):
    chatbox.talk("Comment faire un virement ?")
    chatbox.talk("Comment faire un virement ?")
    Interaction.objects.filter(pk=Interaction.objects.first().pk).update(created_at=timezone.now() - timedelta(days=40))
    for period, usage in (("Last30Days", 1), ("Last3Months", 2)):
        values = chatbox.values(chatbox.post(f"chat/topknowledge/{chatbox.bot}", {"language": "fr", "period": period}))
        # A featured question: among the first, with its usage in the period.
        articles = {a["reword"]: a["usage"] for a in json.loads(values["knowledgeArticles"])}
        assert articles["Comment faire un virement ?"] == usage
