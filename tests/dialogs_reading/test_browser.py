"""The dialogs page in a real browser (Debian's chromium, 1366 px wide): an administrator lists the
dialogs (colours, unread in bold, the visitor's id), narrows them with the filters, reads a transcript and
marks it corrected; a reader reads the same transcript without the visitor's id and without the buttons.
Screenshots go to test-results/dialogs_reading/."""

import pytest
from playwright.sync_api import expect

from accounts.models import Account
from accounts.roles import sync_role_groups
from bots.models import Bot
from dialogs.models import Dialog
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser  # noqa: F401 (fixture)

from .seed import seed

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("dialogs_reading", full_page=True)


@pytest.fixture
def live_bot(live_server, transactional_db):
    bot = Bot.objects.create(name="Banque Demo", account=Account.objects.create(name="Bank"))
    dialogs = seed(bot)
    sync_role_groups()  # the live server's database was flushed: the roles' groups are made again
    return bot, dialogs


@pytest.fixture
def page(browser):  # noqa: F811 (fixture)
    context = back_office_context(browser)
    yield context.new_page()
    context.close()


def log_in(page, live_server, bot, role: str):
    user, _ = make_persona(bot.account, role, login=f"{role}-dialogs")
    sign_in(page, live_server.url, user.username, PASSWORD)
    expect(page.locator("#header-inner")).to_be_visible()
    return user


def filters(page):
    """The list's filter panel, opened (below 1536 px the back office keeps it in a side sheet)."""
    panel = page.locator("#changelist-filter")
    if not panel.is_visible():
        page.locator("[x-on\\:click='filterOpen = true']").first.click()
    expect(panel).to_be_visible()
    return panel


def test_an_administrator_reads_filters_and_marks_dialogs(page, live_server, live_bot):
    bot, dialogs = live_bot
    admin = log_in(page, live_server, bot, "administrator")
    # The sidebar leads to the dialogs page (and, for administrators, to the GDPR requests).
    expect(page.get_by_role("link", name="policy GDPR requests")).to_be_visible()
    page.get_by_role("link", name="forum Dialogs").click()  # the sidebar entry (its icon, then its name)
    expect(page).to_have_url(live_server.url + "/admin/dialogs/dialog/")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(5)
    expect(page.locator("#result_list")).to_contain_text("visitor-recovered-91")
    expect(rows.locator('[data-status="unread"]')).to_have_count(5)
    failed_row = rows.filter(has_text="visitor-failed-22")
    expect(failed_row.locator('[data-qualification="failed"]')).to_contain_text("Ended misunderstood")
    # Unread rows are bold.
    weight = failed_row.locator("td.field-started strong, th.field-started strong").first.evaluate(
        "node => getComputedStyle(node).fontWeight"
    )
    assert int(weight) >= 600
    # The table fits the screen: no sideways scrolling at 1366 px.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    shot(page, "01-dialogs-list-administrator")

    panel = filters(page)
    shot(page, "02-filters")
    panel.locator("select[name=qualification]").select_option("failed")
    panel.locator("select[name=language]").select_option("fr")
    page.locator("#filter-form [type=submit]").first.click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("visitor-failed-22")
    shot(page, "03-filtered-ended-misunderstood")

    page.goto(live_server.url + "/admin/dialogs/dialog/?qualification=recovered")
    page.locator("#result_list tbody tr a").first.click()
    transcript = page.locator('[data-testid="transcript"]')
    expect(transcript.locator('[data-side="visitor"]')).to_have_count(3)
    expect(transcript.locator('[data-side="bot"]')).to_have_count(3)
    expect(transcript.locator(".dlg-chip.clicked")).to_have_text("Lost card ✓ clicked")
    expect(page.locator('[data-testid="visitor-id"]')).to_have_text("visitor-recovered-91")
    expect(page.locator('[data-testid="qualification"]')).to_have_text("Answered after misunderstandings")
    # The visitor's bubbles are on the right, the bot's on the left.
    visitor_box = transcript.locator('[data-side="visitor"] .dlg-bubble').first.bounding_box()
    bot_box = transcript.locator('[data-side="bot"] .dlg-bubble').first.bounding_box()
    assert visitor_box["x"] > bot_box["x"] + 100
    expect(page.locator('[data-testid="reading-status"]')).to_contain_text("Read on")
    shot(page, "04-transcript-rewording-clicked")

    page.locator('[data-testid="mark-corrected"]').click()
    expect(page.locator('[data-testid="reading-status"]')).to_contain_text("Corrected on")
    expect(page.locator('[data-testid="mark-not-corrected"]')).to_be_visible()
    shot(page, "05-transcript-marked-corrected")
    recovered = Dialog.objects.get(pk=dialogs["recovered"].pk)
    assert recovered.corrected_by_id == admin.pk and recovered.read_by_id == admin.pk

    page.goto(live_server.url + "/admin/dialogs/dialog/")
    expect(rows.locator('[data-status="unread"]')).to_have_count(4)
    expect(rows.locator('[data-status="corrected"]')).to_have_count(1)
    shot(page, "06-dialogs-list-after-reading")


def test_a_reader_reads_without_the_visitors_id(page, live_server, live_bot):
    bot, dialogs = live_bot
    log_in(page, live_server, bot, "reader")
    expect(page.get_by_role("link", name="policy GDPR requests")).to_have_count(0)
    page.get_by_role("link", name="forum Dialogs").click()  # the sidebar entry (its icon, then its name)
    expect(page).to_have_url(live_server.url + "/admin/dialogs/dialog/")
    expect(page.locator("#result_list tbody tr")).to_have_count(5)
    expect(page.locator("#result_list")).not_to_contain_text("visitor-")
    shot(page, "07-dialogs-list-reader")
    page.goto(live_server.url + f"/admin/dialogs/dialog/{dialogs['direct'].pk}/change/")
    transcript = page.locator('[data-testid="transcript"]')
    expect(transcript).to_contain_text("Quels sont vos horaires ?")
    expect(transcript.locator('[data-testid="feedback"]')).to_contain_text("Pas le samedi ?")
    expect(transcript.locator('[data-testid="answer-item"]')).to_contain_text("Opening hours")
    expect(page.locator('[data-testid="visitor-id"]')).to_have_count(0)
    expect(page.locator('[data-testid="mark-corrected"]')).to_have_count(0)
    assert "visitor-direct" not in page.content()
    shot(page, "08-transcript-reader")
    page.goto(live_server.url + f"/admin/dialogs/dialog/{dialogs['livechat'].pk}/change/")
    expect(transcript.locator('[data-side="operator"]')).to_contain_text("Bonjour, je suis Anne.")
    expect(transcript.locator('[data-testid="upload"]')).to_contain_text("facture.pdf")
    shot(page, "09-transcript-live-chat")
