"""Opening hours in the back office, in chromium: an administrator gives the team its hours (Monday to Friday,
9:00 to 18:00, in Paris) through the add form, five lines ready to fill; the list then shows them, with
whether it is open now, in English and in French; a line that closes before it opens is refused with the
reason. Screenshots go to test-results/opening-hours/."""

import pytest
from playwright.sync_api import expect

from accounts.models import Account, Role
from livechat.models import OpeningHours
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("opening-hours")
ADD = "/admin/livechat/openinghours/add/"


@pytest.fixture
def page(browser, live_server, demo_bot_live):  # noqa: F811
    context = back_office_context(browser, width=1366, height=900, locale="en-GB")
    page = context.new_page()
    user, _ = make_persona(Account.objects.get(name="Demo"), Role.ADMINISTRATOR, login="claire")
    sign_in(page, live_server.url, user.username, PASSWORD)
    yield page
    context.close()


def fill_line(page, index: int, weekday: str, opens: str, closes: str):
    page.locator(f"select[name='slots-{index}-weekday']").select_option(weekday)
    page.locator(f"input[name='slots-{index}-opens']").fill(opens)
    page.locator(f"input[name='slots-{index}-closes']").fill(closes)


def test_an_administrator_gives_the_team_its_opening_hours(page, live_server):
    page.goto(live_server.url + ADD)
    expect(page.locator("select[name='slots-4-weekday']")).to_have_count(1)  # five lines ready
    shot(page, "01-add-form-en", full_page=True)
    for index, weekday in enumerate(["0", "1", "2", "3", "4"]):
        fill_line(page, index, weekday, "09:00", "18:00")
    page.locator("[name='_save']").click()
    expect(page.locator("#result_list")).to_contain_text("Monday 09:00–18:00")
    shot(page, "02-list-en", full_page=True)
    schedule = OpeningHours.objects.get()
    assert schedule.competency is None and schedule.account.name == "Demo"
    assert sorted((s.weekday, str(s.opens), str(s.closes)) for s in schedule.slots.all()) == [
        (day, "09:00:00", "18:00:00") for day in range(5)
    ]

    # A line that closes before it opens: refused, with the reason, nothing saved.
    page.goto(live_server.url + ADD)
    fill_line(page, 0, "5", "18:00", "09:00")
    page.locator("[name='_save']").click()
    expect(page.get_by_text("It closes after it opens")).to_be_visible()
    assert OpeningHours.objects.count() == 1
    shot(page, "03-refused-en", full_page=True)

    # In French.
    page.get_by_text("claire@example.org").click()  # unfold's user menu
    page.get_by_role("button", name="Français").click()
    page.wait_for_load_state()
    page.goto(live_server.url + "/admin/livechat/openinghours/")
    expect(page.locator("#result_list")).to_contain_text("Lundi 09:00–18:00")
    expect(page.locator("#result_list thead")).to_contain_text("Plages d'ouverture")
    shot(page, "04-list-fr", full_page=True)
