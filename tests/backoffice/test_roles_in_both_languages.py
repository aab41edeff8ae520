"""Each role signs in from a French browser and from an English one (Accept-Language, no choice made) in chromium:
its home and its main pages come in the browser's language, with none of our strings of the other language
(tests/backoffice/test_every_page_both_languages.py's checks, on what the page shows). Screenshots go to
test-results/roles-languages/."""

import pytest
from django.utils import translation
from django.utils.text import capfirst
from playwright.sync_api import expect

from accounts.models import Account, Role
from bots.models import Bot
from dialogs.models import Dialog
from knowledge.models import KnowledgeItem
from tests.accounts.personas import PASSWORD, make_persona
from tests.backoffice.test_every_page_both_languages import (
    catalogue,
    english_words,
    found,
    phrases,
    stored_texts,
    without,
)
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("roles-languages", full_page=True)
BROWSERS = {"fr": "fr-FR", "en": "en-US"}
# The words a person reads: without scripts, code, typed values, icons' names and the lists' cells (data).
SHOWN_TEXT = """() => {
    const body = document.body.cloneNode(true);
    body.querySelectorAll(
        "script, style, template, textarea, select, pre, code, td, [class*=material-symbols], .hidden"
    ).forEach(node => node.remove());
    return body.textContent.replace(/\\s+/g, " ");
}"""


def main_pages(role: str, bot: Bot) -> list[tuple[str, str]]:
    """The role's home, then the 2-3 pages it works in most (accounts/navigation.py's first entries)."""
    item = KnowledgeItem.objects.filter(bot=bot).order_by("pk").first()
    home = ("home", "/admin/")
    return {
        Role.ADMINISTRATOR: [
            home,
            ("bot", f"/admin/bots/bot/{bot.pk}/change/"),
            ("api-access", f"/admin/accounts/botapiaccess/{bot.pk}/change/"),
            ("users", "/admin/auth/user/"),
        ],
        Role.EDITOR: [
            home,
            ("knowledge-items", "/admin/knowledge/knowledgeitem/"),
            ("knowledge-item", f"/admin/knowledge/knowledgeitem/{item.pk}/change/"),
        ],
        Role.READER: [
            home,
            ("knowledge-items", "/admin/knowledge/knowledgeitem/"),
            ("dialogs", "/admin/dialogs/dialog/"),
        ],
        Role.OPERATOR: [home, ("callbacks", "/admin/livechat/callback/"), ("dialogs", "/admin/dialogs/dialog/")],
    }[role]


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("role", [Role.ADMINISTRATOR, Role.EDITOR, Role.READER, Role.OPERATOR])
def test_each_role_meets_the_back_office_in_its_browser_s_language(browser, live_server, demo_bot_live, role, language):  # noqa: F811
    english, french = phrases(catalogue())
    others = english if language == "fr" else french
    with translation.override(language):
        dialogs = str(capfirst(Dialog._meta.verbose_name_plural))  # in every role's sidebar
    user, _ = make_persona(Account.objects.get(name="Demo"), role, login=f"{role}-{language}")
    context = back_office_context(browser, height=860, locale=BROWSERS[language])
    page = context.new_page()
    try:
        sign_in(page, live_server.url, user.username, PASSWORD)
        page.wait_for_load_state()
        shot(page, f"{role}-{language}-00-landing")  # an operator lands in the live-chat console
        expect(page.locator("html")).to_have_attribute("lang", language)
        data = stored_texts()
        for number, (name, path) in enumerate(main_pages(role, demo_bot_live), start=1):
            response = page.goto(live_server.url + path)
            assert response.status == 200, (role, language, path, response.status)
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.locator("#nav-sidebar-apps")).to_contain_text(dialogs)
            shot(page, f"{role}-{language}-{number:02}-{name}")
            text = without(page.evaluate(SHOWN_TEXT), data)
            mixed = found(text, others) + (english_words(text) if language == "fr" else [])
            assert not mixed, (role, language, path, mixed)
    finally:
        context.close()
