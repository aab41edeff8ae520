"""The learning page in a real browser (Debian's chromium, 1366 px wide): an editor finds the demo bot's
misunderstood questions grouped with their counts, turns one into a formulation of an item (and the bot
then answers it), ignores another group with a reason and finds it in the ignored view; a reader sees the
groups without any action. Screenshots go to test-results/learning/."""

import re

import pytest
from playwright.sync_api import expect

from knowledge.demo.seed import BOT_UUID
from knowledge.learning.models import IgnoredGroup
from knowledge.models import KnowledgeItem
from tests.accounts.personas import PASSWORD
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

from .conftest import BITCOIN, EDITOR, LIFE_INSURANCE, READER, seed_inputs, staff, talk_once

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)
shot = screenshots("learning", full_page=True)


@pytest.fixture
def context(browser):  # noqa: F811
    made = back_office_context(browser, timeout=15_000)
    yield made
    made.close()


def log_in(page, server, login: str) -> None:
    sign_in(page, server.url, login, PASSWORD)
    expect(page.get_by_role("link", name="Misunderstood questions", exact=True).first).to_be_visible()


def group(page, text: str):
    """The group led by `text` (as typed last: any case, a question mark or not)."""
    title = re.compile(rf"^«\s*{re.escape(text)}\s*\??\s*»$", re.IGNORECASE)
    return page.get_by_test_id("group").filter(has=page.get_by_test_id("group-title").filter(has_text=title))


def test_an_editor_turns_a_misunderstood_question_into_a_formulation_and_ignores_another(
    context,
    live_server,
    demo_bot_live,  # noqa: F811
):
    seed_inputs()
    editor = staff(demo_bot_live, "editor", EDITOR)
    savings = KnowledgeItem.objects.get(bot=demo_bot_live, label="Savings rates")
    page = context.new_page()
    log_in(page, live_server, editor.username)

    # The bot's page links to it; so does the sidebar: the groups, most asked first, with their counts.
    page.goto(f"{live_server.url}/admin/bots/bot/{demo_bot_live.pk}/change/")
    page.locator(f'a[href$="/misunderstoodinput/?bot={demo_bot_live.pk}"]').click()
    expect(page).to_have_url(re.compile(rf"/admin/knowledge/misunderstoodinput/\?bot={demo_bot_live.pk}$"))
    page.get_by_role("link", name="Misunderstood questions", exact=True).first.click()
    insurance = group(page, "assurance vie")
    expect(insurance.get_by_test_id("group-count")).to_contain_text(str(len(LIFE_INSURANCE)))
    expect(insurance.get_by_test_id("examples")).to_contain_text("je cherche une assurance vie pour mes enfants")
    expect(group(page, "bitcoin").get_by_test_id("group-count")).to_contain_text(str(len(BITCOIN)))
    expect(page.get_by_test_id("group").first).to_contain_text("assurance vie")  # the most asked leads
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366  # fits the screen
    shot(page, "10-groups")

    # One click: the input becomes a formulation of the chosen item, and the bot answers it.
    insurance.get_by_test_id("text").fill("assurance vie")
    insurance.locator("input[name=other_item]").fill(str(savings.pk))
    insurance.get_by_test_id("add-to-other").click()
    expect(page.locator("body")).to_contain_text("the bot now answers it with this item")
    shot(page, "20-formulation-added")
    assert savings.formulations.filter(language="fr", text="assurance vie").exists()
    answer = talk_once(BOT_UUID, "assurance vie")
    assert (answer["typeResponse"], answer["knowledgeId"]) == ("DMUnderstoodQuestion", savings.pk)

    # Ignore the bitcoin group with a reason: it leaves the page and shows in the ignored view.
    bitcoin = group(page, "bitcoin")
    bitcoin.get_by_test_id("ignore").click()  # no reason: the browser asks for one, nothing is stored
    assert not IgnoredGroup.objects.exists()
    bitcoin.get_by_test_id("reason").fill("We do not sell crypto-assets")
    bitcoin.get_by_test_id("ignore").click()
    expect(page.locator("body")).to_contain_text("is ignored: We do not sell crypto-assets")
    expect(group(page, "bitcoin")).to_have_count(0)
    page.get_by_test_id("ignored-link").click()
    expect(page.locator("#result_list")).to_contain_text("We do not sell crypto-assets")
    expect(page.locator("#result_list")).to_contain_text(editor.username)
    shot(page, "30-ignored-view")


def test_a_reader_sees_the_groups_but_no_action(context, live_server, demo_bot_live):  # noqa: F811
    seed_inputs()
    reader = staff(demo_bot_live, "reader", READER)
    page = context.new_page()
    log_in(page, live_server, reader.username)
    page.goto(f"{live_server.url}/admin/knowledge/misunderstoodinput/")
    expect(group(page, "assurance vie").get_by_test_id("group-count")).to_contain_text(str(len(LIFE_INSURANCE)))
    expect(page.get_by_test_id("add-to")).to_have_count(0)
    expect(page.get_by_test_id("ignore")).to_have_count(0)
    expect(page.get_by_test_id("new-item")).to_have_count(0)
    shot(page, "40-reader")
