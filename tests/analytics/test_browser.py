"""The analytics page in a real browser (Debian's chromium, the live server, a 1366 px screen): a reader of the
bot's account opens it from the sidebar, picks a custom range and sees the three charts drawn by Chart.js
with the seeded figures (read from the Chart instances), the rates with their numerators and denominators,
the top knowledge, and downloads the CSV; another account's bot is refused. Screenshots go to
test-results/analytics/."""

import csv
import io
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from accounts.models import Role
from tests.accounts.personas import PASSWORD, make_persona
from tests.analytics.seed import EXPECTED, seed, seed_bot
from tests.e2e.conftest import browser  # noqa: F401 (chromium)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "analytics"
PARIS = ZoneInfo("Europe/Paris")

CHARTS = """() => [...document.querySelectorAll('canvas.chart')].map(canvas => {
    const chart = Chart.getChart(canvas);
    return chart && {
        type: chart.config.type,
        labels: chart.data.labels,
        datasets: chart.data.datasets.map(d => ({label: d.label, data: d.data})),
        drawn: chart.getDatasetMeta(0).data.length,
        width: canvas.width,
    };
})"""


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def seeded(transactional_db):
    bot = seed_bot("Clara analytics")
    bot.time_zone = "Europe/Paris"
    bot.save(update_fields=["time_zone"])
    seed(bot, PARIS)
    other = seed_bot("Someone else's bot")
    seed(other, PARIS)
    reader, _ = make_persona(bot.account, Role.READER, login="rita")
    return bot, other, reader


@pytest.fixture
def page(browser, live_server):  # noqa: F811 (the chromium fixture)
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US", accept_downloads=True)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_a_reader_sees_the_charts_drawn_from_the_seeded_data(page, live_server, seeded):
    _, other, _ = seeded
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    link = page.locator("#nav-sidebar-apps").get_by_role("link", name="Bot analytics")  # the home links it too
    expect(link).to_be_visible()
    shot(page, "01-sidebar")
    link.click()

    # The default period (the last 30 days) holds none of March 2026: the charts are drawn, empty.
    expect(page.get_by_test_id("period")).to_contain_text("Last 30 days")
    expect(page.locator("#id_bot option")).to_have_text(["Clara analytics"])  # the reader's bots only
    expect(page.get_by_test_id("total-dialogs")).to_have_text("0")
    shot(page, "02-last-30-days")

    page.select_option("#id_period", "Custom")
    expect(page.locator("#id_start")).to_be_visible()
    page.fill("#id_start", "2026-03-01")
    page.fill("#id_end", "2026-03-03")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_test_id("period")).to_contain_text("2026-03-01 – 2026-03-03")
    expect(page.get_by_test_id("period")).to_contain_text("Europe/Paris")
    expect(page.get_by_test_id("total-dialogs")).to_have_text("4")
    expect(page.get_by_test_id("total-interactions")).to_have_text("9")
    for testid, name in [
        ("rate-dialogs-direct", "dialogs_direct"),
        ("rate-dialogs-recovered", "dialogs_recovered"),
        ("rate-dialogs-failed", "dialogs_failed"),
        ("rate-understood", "understood"),
        ("rate-reworded", "reworded"),
        ("rate-misunderstood", "misunderstood"),
        ("rate-rewording-clicks", "rewording_clicks"),
        ("rate-satisfaction", "satisfaction"),
        ("rate-livechat-taken", "livechat_taken"),
    ]:
        numerator, denominator = EXPECTED[name]
        expect(page.get_by_test_id(testid).locator("[data-role=fraction]")).to_contain_text(
            f"{numerator} / {denominator}"
        )
    expect(page.get_by_test_id("livechat-average-wait")).to_contain_text("2 min 00 s")
    top = page.get_by_test_id("top-knowledge").locator("tbody tr")
    expect(top).to_have_count(2)
    expect(top.first).to_contain_text("Horaires")
    expect(top.nth(1)).to_contain_text("Carte perdue")

    charts = page.evaluate(CHARTS)
    labels = ["2026-03-01", "2026-03-02", "2026-03-03"]
    assert [chart["labels"] for chart in charts] == [labels] * 4
    activity, outcomes, answers, livechat = charts
    assert activity["datasets"] == [
        {"label": "Dialogs", "data": EXPECTED["dialogs"]},
        {"label": "Interactions", "data": EXPECTED["interactions"]},
    ]
    assert answers["datasets"] == [
        {"label": "Understood", "data": [2, 2, 0]},
        {"label": "Reworded", "data": [2, 0, 0]},
        {"label": "Misunderstood", "data": [1, 1, 0]},
    ]
    assert livechat["datasets"] == [
        {"label": "Taken by an operator", "data": [1, 0, 0]},
        {"label": "Not taken", "data": [0, 1, 0]},
    ]
    assert outcomes["datasets"] == [
        {"label": "Only direct answers", "data": [0, 1, 0]},
        {"label": "Answered after misunderstandings", "data": [0, 1, 0]},
        {"label": "Ended misunderstood", "data": [1, 0, 0]},
    ]
    assert [chart["type"] for chart in charts] == ["line", "bar", "bar", "bar"]
    assert all(chart["drawn"] == 3 and chart["width"] > 0 for chart in charts)
    # The page fits the 1366 px screen: nothing scrolls sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    shot(page, "03-custom-range")

    with page.expect_download() as download:
        page.get_by_test_id("csv-links").get_by_role("link", name="Rates").click()
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text())))
    assert rows[4] == ["understood", "4", "8", "50.0", "questions typed"]

    page.select_option("#id_period", "Custom")
    page.fill("#id_start", "2026-03-03")
    page.fill("#id_end", "2026-03-01")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_test_id("form-errors")).to_have_text("The last day comes before the first day.")
    shot(page, "04-bad-range")

    response = page.goto(f"{live_server.url}/admin/bots/analytics/?bot={other.pk}")
    assert response.status == 404
    expect(page.get_by_test_id("not-your-bot")).to_contain_text("This bot is not one of yours")
    expect(page.locator("body")).not_to_contain_text("Someone else's bot")
    shot(page, "05-other-account-refused")
