"""The analytics page and its CSV exports over HTTP: a reader of the bot's account reads them, exactly; another
account's bot is refused; bad periods are clear errors; the page's queries do not grow with the volume."""

import csv
import io
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Role
from tests.accounts.personas import make_persona
from tests.analytics.seed import seed, seed_bot

PAGE = reverse("admin:bots_analytics")
RANGE = {"period": "Custom", "start": "2026-03-01", "end": "2026-03-03"}


def csv_url(table: str) -> str:
    return reverse("admin:bots_analytics_csv", args=[table])


@pytest.fixture
def bot(db):
    bot = seed_bot()
    seed(bot, ZoneInfo(bot.time_zone))
    return bot


@pytest.fixture
def reader(client, bot):
    user, _ = make_persona(bot.account, Role.READER)
    user.refresh_from_db()
    assert user.is_staff  # the membership made them back-office staff, in the Readers group
    client.force_login(user)
    return user


def rows(response) -> list[list[str]]:
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_a_reader_sees_every_rate_with_its_numerator_and_denominator(client, reader, bot):
    response = client.get(PAGE, {"bot": bot.pk, **RANGE})
    assert response.status_code == 200
    html = response.content.decode()
    report = response.context["report"]
    assert (report.total_dialogs, report.total_interactions) == (4, 9)
    for testid, numerator, denominator in [
        ("rate-dialogs-direct", 1, 3),
        ("rate-dialogs-recovered", 1, 3),
        ("rate-dialogs-failed", 1, 3),
        ("rate-understood", 4, 8),
        ("rate-reworded", 2, 8),
        ("rate-misunderstood", 2, 8),
        ("rate-rewording-clicks", 1, 2),
        ("rate-satisfaction", 2, 3),
        ("rate-livechat-taken", 1, 2),
    ]:
        block = html[html.index(f'data-testid="{testid}"') :]
        assert (
            f'<span data-role="numerator">{numerator}</span> / <span data-role="denominator">{denominator}</span>'
            in (block[:1200])
        ), testid
    assert "50.0 %" in html and "2 min 00 s" in html
    assert 'data-type="bar"' in html and html.count('class="chart"') == 4
    assert "Horaires" in html and "Carte perdue" in html
    assert "dialogs in qualification mode are never counted" in html


def test_csv_exports(client, reader, bot):
    days = rows(client.get(csv_url("days"), {"bot": bot.pk, **RANGE}))
    assert days == [
        [
            "date",
            "dialogs",
            "dialogs_direct",
            "dialogs_recovered",
            "dialogs_failed",
            "interactions",
            "questions",
            "understood",
            "reworded",
            "misunderstood",
            "feedback_positive",
            "feedback_negative",
            "livechat_requests",
            "livechat_taken",
            "livechat_average_wait_seconds",
        ],
        ["2026-03-01", "2", "0", "0", "1", "6", "5", "2", "2", "1", "1", "1", "1", "1", "120.0"],
        ["2026-03-02", "2", "1", "1", "0", "3", "3", "2", "0", "1", "1", "0", "1", "0", ""],
        ["2026-03-03", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", ""],
    ]
    rates = rows(client.get(csv_url("rates"), {"bot": bot.pk, **RANGE}))
    assert rates == [
        ["rate", "numerator", "denominator", "percent", "counted"],
        ["dialogs_direct", "1", "3", "33.3", "qualified dialogs"],
        ["dialogs_recovered", "1", "3", "33.3", "qualified dialogs"],
        ["dialogs_failed", "1", "3", "33.3", "qualified dialogs"],
        ["understood", "4", "8", "50.0", "questions typed"],
        ["reworded", "2", "8", "25.0", "questions typed"],
        ["misunderstood", "2", "8", "25.0", "questions typed"],
        ["rewording_click", "1", "2", "50.0", "rewordings offered"],
        ["satisfaction", "2", "3", "66.7", "positive and negative feedback"],
        ["livechat_taken", "1", "2", "50.0", "live-chat requests"],
    ]
    response = client.get(csv_url("knowledge"), {"bot": bot.pk, **RANGE})
    assert (
        response["Content-Disposition"]
        == f'attachment; filename="analytics-knowledge-bot{bot.pk}-20260301-20260303.csv"'
    )
    knowledge = rows(response)
    assert knowledge[0] == [
        "knowledge_id",
        "knowledge",
        "uses",
        "feedback_positive",
        "feedback_negative",
        "satisfaction_percent",
    ]
    assert [row[1:] for row in knowledge[1:]] == [
        ["Horaires", "4", "2", "0", "100.0"],
        ["Carte perdue", "1", "0", "1", "0.0"],
    ]


def test_a_formula_in_an_item_name_is_quoted_in_the_csv(client, reader, bot):
    bot.knowledge_items.filter(label="Horaires").update(label='=HYPERLINK("http://evil.example","x")')
    knowledge = rows(client.get(csv_url("knowledge"), {"bot": bot.pk, **RANGE}))
    assert knowledge[1][1] == '\'=HYPERLINK("http://evil.example","x")'


def test_another_accounts_bot_is_refused(client, reader, bot):
    other = seed_bot("Not yours")
    seed(other, ZoneInfo("UTC"))
    refused = client.get(PAGE, {"bot": other.pk, **RANGE})
    assert refused.status_code == 404 and "report" not in refused.context
    assert "This bot is not one of yours" in refused.content.decode()
    for table in ("days", "rates", "knowledge"):
        response = client.get(csv_url(table), {"bot": other.pk, **RANGE})
        assert response.status_code == 404 and response.json()["code"] == "UNKNOWN_BOT"
    assert client.get(PAGE, {"bot": "1 OR 1=1"}).status_code == 404
    # The bot list offers the reader's own bots only.
    page = client.get(PAGE).content.decode()
    assert "Analytics bot" in page and "Not yours" not in page


def test_without_the_right_to_view_bots_the_page_is_forbidden(client, bot):
    user, _ = make_persona(bot.account, Role.READER)
    user.groups.clear()
    client.force_login(type(user).objects.get(pk=user.pk))
    assert client.get(PAGE).status_code == 403
    assert client.get(csv_url("days")).status_code == 403
    client.logout()
    assert client.get(PAGE).status_code == 302  # to the login page


def test_bad_periods_are_clear_errors(client, reader, bot):
    page = client.get(PAGE, {"bot": bot.pk, "period": "Custom", "start": "2026-03-05", "end": "2026-03-01"})
    assert page.status_code == 200
    assert "The last day comes before the first day." in page.content.decode()
    assert "report" not in page.context
    response = client.get(csv_url("days"), {"bot": bot.pk, "period": "Forever"})
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PERIOD" and "period" in response.json()["fields"]
    assert client.get(csv_url("everything"), {"bot": bot.pk}).status_code == 404


def test_the_page_queries_do_not_grow_with_the_volume(client, reader, bot):
    with CaptureQueriesContext(connection) as first:
        assert client.get(PAGE, {"bot": bot.pk, **RANGE}).status_code == 200
    seed(bot, ZoneInfo("UTC"))  # twice the dialogs, the items and the live-chat requests
    with CaptureQueriesContext(connection) as second:
        response = client.get(PAGE, {"bot": bot.pk, **RANGE})
    assert response.context["report"].total_dialogs == 8
    assert len(second) == len(first) <= 20, [query["sql"] for query in second]


def test_a_reader_of_an_account_without_bots_is_told_so(client, db):
    user, _ = make_persona("Empty account", Role.READER)
    client.force_login(type(user).objects.get(pk=user.pk))
    response = client.get(PAGE)
    assert response.status_code == 200 and "report" not in response.context
    assert "You have no bot yet" in response.content.decode()
    assert client.get(csv_url("days")).status_code == 400  # no bot to export: the form says which field
