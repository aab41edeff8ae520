"""The error logs' back-office pages in a real browser (Debian's chromium): a chatbox's failing calls and
its error report, made over HTTP against the live server, are read by an administrator in the server
errors and client errors lists, then narrowed with the side bar's filters. Screenshots go to
test-results/log_explicit/."""

import json
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from bots.models import Bot
from tests.accounts.personas import PASSWORD, make_persona
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "log_explicit"


def post(server, path: str, fields: dict) -> int:
    body = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(server.url + path, data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        json.loads(error.read())  # an error answer is the servlet's JSON
        return error.code


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def back_office(browser, live_server, demo_bot_live):  # noqa: F811 (fixtures)
    context = browser.new_context(viewport={"width": 1360, "height": 900}, locale="en-US")
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def filters(page):
    """The list's filter panel, opened (below 1536 px the back office keeps it in a side sheet)."""
    panel = page.locator("#changelist-filter")
    if not panel.is_visible():
        page.locator("[x-on\\:click='filterOpen = true']").first.click()
    return panel


def test_an_administrator_reads_and_filters_the_error_logs(back_office, live_server, demo_bot_live):  # noqa: F811
    bot = demo_bot_live.uuid
    for _ in range(3):
        assert post(live_server, f"/servlet/api/chat/feedback/{bot}", {"feedBack": "positive"}) == 400
    assert post(live_server, f"/api/chat/talk/{bot}", {"userInput": "Bonjour", "variables": "{oops"}) == 400
    report = {"error": "TypeError", "message": "Cannot read properties of undefined (reading 'text')"}
    assert post(live_server, f"/servlet/api/chat/error/{bot}", {**report, "browser": "Chrome 131"}) == 200
    # A second bot of the account, with an error of its own: the list can then be narrowed to one bot.
    second = Bot.objects.create(name="Bob le bot", account=demo_bot_live.account)
    assert post(live_server, f"/servlet/api/chat/history/{second.uuid}", {"contextId": "\x00"}) == 400
    admin, _ = make_persona(demo_bot_live.account, "administrator", login="ada")
    admin.is_staff = True
    admin.save(update_fields=["is_staff"])
    page = back_office

    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    expect(page.get_by_role("link", name="Server errors")).to_be_visible()
    expect(page.get_by_role("link", name="Client errors")).to_be_visible()
    shot(page, "01-index")

    page.get_by_role("link", name="Server errors").click()
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.filter(has_text="Bob le bot")).to_contain_text("POST chat/history/{bot_uuid}")
    shot(page, "02-server-errors-all-bots")
    filters(page).get_by_role("link", name=demo_bot_live.name).click()
    expect(rows).to_have_count(2)
    feedback = rows.filter(has_text="POST chat/feedback/{bot_uuid}")
    expect(feedback).to_contain_text("MISSING_FIELD")
    expect(feedback.locator("td.field-count")).to_have_text("3")
    expect(rows.filter(has_text="POST chat/talk/{bot_uuid}")).to_contain_text("INVALID_FIELD")
    shot(page, "03-server-errors-one-bot")

    filters(page).get_by_role("link", name="INVALID_FIELD").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("The field 'variables' is invalid")
    filters(page).get_by_role("link", name="Today").click()
    expect(rows).to_have_count(1)
    shot(page, "04-server-errors-code-and-date")

    page.goto(live_server.url + "/admin/dialogs/clienterror/")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list")).to_contain_text("Cannot read properties of undefined")
    filters(page).get_by_role("link", name="Today").click()
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    shot(page, "05-client-errors")
    page.locator("#result_list tbody tr a").first.click()
    expect(page.locator("#content")).to_contain_text("Chrome 131")
    expect(page.locator("[name=_save]")).to_have_count(0)
    shot(page, "06-client-error-read-only")
