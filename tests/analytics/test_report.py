"""The analytics report on seeded data: every rate's numerator and denominator, the days in the bot's time
zone, qualification-mode dialogs left out, the periods, and a fixed number of queries."""

import json
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.models import Bot
from dialogs.models import Dialog, Interaction
from dialogs.topknowledge import PERIODS
from reporting.analytics.charts import buckets, charts
from reporting.analytics.periods import CUSTOM, PERIOD_LABELS, PeriodForm, bot_timezone
from reporting.analytics.report import build_report, readable_wait
from tests.analytics.seed import DAY1, EXPECTED, at, seed, seed_bot

UTC = ZoneInfo("UTC")
PARIS = ZoneInfo("Europe/Paris")


def window(bot, start=DAY1, end=DAY1 + timedelta(days=2), period=CUSTOM, now=None):
    form = PeriodForm({"bot": bot.pk, "period": period, "start": start, "end": end}, bots=Bot.objects.all())
    assert form.is_valid(), form.errors
    return form.window(now)


def fraction(rate) -> tuple[int, int]:
    return rate.numerator, rate.denominator


@pytest.fixture
def seeded(db):
    bot = seed_bot()
    return bot, seed(bot, UTC)


def test_every_rate_has_its_numerator_and_denominator(seeded):
    bot, _ = seeded
    report = build_report(bot, window(bot))
    assert [day.day for day in report.days] == [DAY1, date(2026, 3, 2), date(2026, 3, 3)]
    assert [day.dialogs for day in report.days] == EXPECTED["dialogs"]
    assert [day.interactions for day in report.days] == EXPECTED["interactions"]
    assert fraction(report.understood) == EXPECTED["understood"]
    assert fraction(report.reworded) == EXPECTED["reworded"]
    assert fraction(report.misunderstood) == EXPECTED["misunderstood"]
    assert fraction(report.rewording_clicks) == EXPECTED["rewording_clicks"]
    assert fraction(report.satisfaction) == EXPECTED["satisfaction"]
    assert fraction(report.livechat_taken) == EXPECTED["livechat_taken"]
    assert report.average_wait_seconds == EXPECTED["average_wait_seconds"]
    assert report.longest_wait == timedelta(seconds=120)
    assert report.understood.percent == 50.0
    assert fraction(report.dialogs_direct) == EXPECTED["dialogs_direct"]
    assert fraction(report.dialogs_recovered) == EXPECTED["dialogs_recovered"]
    assert fraction(report.dialogs_failed) == EXPECTED["dialogs_failed"]
    assert report.rewording_clicks.percent == 50.0
    # Per day: the rates' parts.
    first, second, third = report.days
    assert (first.understood, first.reworded, first.misunderstood) == (2, 2, 1)
    assert (second.understood, second.reworded, second.misunderstood) == (2, 0, 1)
    assert (first.positive, first.negative, second.positive) == (1, 1, 1)
    assert (first.livechat_requests, first.livechat_taken, second.livechat_requests, second.livechat_taken) == (
        1,
        1,
        1,
        0,
    )
    assert third.questions == 0 and third.average_wait_seconds is None


def test_top_knowledge_counts_uses_and_feedback_without_qualification_dialogs(seeded):
    bot, seeded_data = seeded
    report = build_report(bot, window(bot))
    hours, lost = seeded_data["items"]["hours"], seeded_data["items"]["lost"]
    top = [(item.item_id, item.name, item.uses, item.positive, item.negative) for item in report.top_items]
    # The item without a label is named by its first formulation.
    assert top == [(hours.pk, "Horaires", 4, 2, 0), (lost.pk, "Carte perdue", 1, 0, 1)]
    assert fraction(report.top_items[0].satisfaction) == (2, 2)
    assert fraction(report.top_items[1].satisfaction) == (0, 1)


def test_qualification_mode_dialogs_never_count(seeded):
    """Turning every dialog to qualification mode empties the report."""
    bot, _ = seeded
    bot.dialogs.update(qualification_mode=True)
    report = build_report(bot, window(bot))
    assert report.total_dialogs == report.total_interactions == report.questions == 0
    assert fraction(report.dialogs_direct) == (0, 0)
    assert report.top_items == []
    assert fraction(report.livechat_taken) == (0, 0) and fraction(report.rewording_clicks) == (0, 0)
    assert report.understood.percent is None


def test_the_days_are_the_bots_time_zone_days(db):
    """23:30 and 00:30 in Paris on the night of day 1 to day 2 are 22:30 and 23:30 UTC: a bot in Paris counts
    one on each day, a bot on the server's zone (UTC) both on day 1."""
    bot = seed_bot("Paris bot")
    for moment in (at(PARIS, 1, 23, 30), at(PARIS, 2, 0, 30)):
        dialog = Dialog.objects.create(bot=bot, language="fr", first_activity=moment, last_activity=moment)
        Interaction.objects.create(
            dialog=dialog, bot=bot, created_at=moment, user_input="x", type_response="GBMisunderstoodQuestion"
        )
    in_utc = build_report(bot, window(bot, end=DAY1 + timedelta(days=1)))
    assert [(day.day, day.dialogs, day.misunderstood) for day in in_utc.days] == [
        (DAY1, 2, 2),
        (date(2026, 3, 2), 0, 0),
    ]

    Bot.objects.filter(pk=bot.pk).update(time_zone="Europe/Paris")
    assert bot_timezone(Bot.objects.get(pk=bot.pk)) == PARIS
    in_paris = build_report(bot, window(bot, end=DAY1 + timedelta(days=1)))
    assert in_paris.window.start == datetime(2026, 2, 28, 23, 0, tzinfo=UTC)
    assert [(day.day, day.dialogs, day.misunderstood) for day in in_paris.days] == [
        (DAY1, 1, 1),
        (date(2026, 3, 2), 1, 1),
    ]


def test_the_spec_periods_and_their_labels(seeded):
    bot, _ = seeded
    assert set(PERIOD_LABELS) == {*PERIODS, CUSTOM}
    now = at(UTC, 3, 12)  # noon on day 3
    today = window(bot, period="Today", now=now)
    assert (today.start, today.end) == (at(UTC, 3, 0), now) and today.days == [date(2026, 3, 3)]
    yesterday = build_report(bot, window(bot, period="Yesterday", now=now))
    assert [day.day for day in yesterday.days] == [date(2026, 3, 2)]
    assert fraction(yesterday.understood) == (2, 3)
    last7 = build_report(bot, window(bot, period="Last7Days", now=now))
    assert len(last7.days) == 8  # from noon seven days ago to noon today
    assert last7.total_dialogs == 4 + 1  # the evening before day 1 is in it too
    month = window(bot, period="LastMonth", now=now)
    assert month.days[0] == date(2026, 2, 1) and month.days[-1] == date(2026, 2, 28)
    assert len(window(bot, period="Last12Months", now=now).days) == 366


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"start": "", "end": "2026-03-02"}, "start", "first day"),
        ({"start": "2026-03-05", "end": "2026-03-02"}, "end", "before the first day"),
        ({"start": "2024-01-01", "end": "2026-03-02"}, "end", "at most 366 days"),
        ({"start": "yesterday", "end": "2026-03-02"}, "start", "valid date"),
        ({"period": "Forever"}, "period", "valid choice"),
    ],
)
def test_a_bad_period_is_a_form_error(seeded, fields, field, message):
    bot, _ = seeded
    data = {"bot": bot.pk, "period": CUSTOM, **fields}
    form = PeriodForm(data, bots=Bot.objects.all())
    assert not form.is_valid()
    assert message in " ".join(form.errors[field])


def test_a_bot_outside_the_choices_is_refused(seeded):
    bot, _ = seeded
    other = seed_bot("Someone else's")
    form = PeriodForm({"bot": other.pk, "period": "Today"}, bots=Bot.objects.filter(pk=bot.pk))
    assert not form.is_valid() and "bot" in form.errors


def selects(captured) -> list[str]:
    return [query["sql"] for query in captured if query["sql"].lstrip().upper().startswith("SELECT")]


def test_the_report_takes_a_fixed_number_of_queries(seeded):
    """Six SELECTs whatever the volume: more dialogs on more days cost none more. Around them only the
    report's transaction (a savepoint here, inside the test's) and, on PostgreSQL, SET LOCAL jit = off."""
    bot, _ = seeded
    period = window(bot)
    with CaptureQueriesContext(connection) as first:
        build_report(bot, period)
    seed(bot, UTC)  # the same dialogs again: twice the volume
    with CaptureQueriesContext(connection) as second:
        report = build_report(bot, period)
    assert report.total_dialogs == 8
    assert len(selects(first.captured_queries)) == len(selects(second.captured_queries)) == 6
    others = [query["sql"] for query in second.captured_queries if query["sql"] not in selects(second.captured_queries)]
    expected_others = 3 if connection.vendor == "postgresql" else 2  # savepoint, release (and SET LOCAL)
    assert len(others) == expected_others, others
    assert len(second.captured_queries) == len(first.captured_queries)


def test_charts_carry_the_days_and_turn_monthly_over_long_periods(seeded):
    bot, _ = seeded
    report = build_report(bot, window(bot))
    drawn = charts(report)
    activity = json.loads(drawn["activity"]["data"])
    assert activity["labels"] == ["2026-03-01", "2026-03-02", "2026-03-03"]
    assert [dataset["data"] for dataset in activity["datasets"]] == [EXPECTED["dialogs"], EXPECTED["interactions"]]
    answers = json.loads(drawn["answers"]["data"])
    assert [dataset["data"] for dataset in answers["datasets"]] == [[2, 2, 0], [2, 0, 0], [1, 1, 0]]
    assert json.loads(drawn["answers"]["options"])["scales"]["x"]["stacked"] is True
    outcomes = json.loads(drawn["outcomes"]["data"])
    assert [dataset["data"] for dataset in outcomes["datasets"]] == [[0, 1, 0], [0, 1, 0], [1, 0, 0]]
    long = build_report(bot, window(bot, start=date(2026, 1, 1), end=date(2026, 6, 30)))
    months = buckets(long)
    assert [month.label for month in months] == ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06"]
    assert [month.total("dialogs") for month in months] == [0, 1, 5, 0, 0, 0]
    assert timezone.is_aware(long.window.start)


def test_waits_read_as_people_say_them():
    assert [readable_wait(value) for value in (None, 0, 45.4, 120, 125, 3599, 3720)] == [
        "–",
        "0 s",
        "45 s",
        "2 min 00 s",
        "2 min 05 s",
        "59 min 59 s",
        "1 h 02 min",
    ]
