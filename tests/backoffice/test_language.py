"""The back office speaks the language of its user's browser until the user chooses one, in chromium: a French
browser gets French at once (Django's, the theme's and our pages); picking English in unfold's user menu wins
over the browser, on every page, and Français again brings French back. The lists of accounts, preferences,
live chat and logs fit a 1366 px wide screen in both languages. Screenshots go to test-results/language/."""

import pytest
from playwright.sync_api import expect

from accounts.models import Account, Role
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, list_widths, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("language")
WIDTH = 1366
LISTS = [
    "auth/user",
    "accounts/apitoken",
    "accounts/competency",
    "accounts/botapiaccess",
    "preferences/botpreference",
    "preferences/preferencechange",
    "livechat/operator",
    "livechat/livechatsettings",
    "livechat/callback",
    "livechat/openinghours",
    "bots/servererror",
]


@pytest.fixture
def page(browser, live_server, demo_bot_live):  # noqa: F811
    # A French browser: its Accept-Language chooses the back office's language until the user picks one.
    context = back_office_context(browser, width=WIDTH, height=860, locale="fr-FR")
    page = context.new_page()
    user, _ = make_persona(Account.objects.get(name="Demo"), Role.ADMINISTRATOR, login="claire")
    sign_in(page, live_server.url, user.username, PASSWORD)
    expect(page.locator("main, #main").first).to_be_visible()
    yield page
    context.close()


def choose(page, language: str):
    page.get_by_text("claire@example.org").click()  # unfold's user menu
    page.get_by_role("button", name=language).click()
    page.wait_for_load_state()


def fits(page) -> dict:
    """The page's and the list's widths: nothing wider than the window, no table scrolled sideways."""
    return list_widths(page)


def check_lists(page, server, language: str):
    for path in LISTS:
        page.goto(f"{server.url}/admin/{path}/")
        expect(page.locator("#result_list, #changelist-form").first).to_be_visible()
        widths = fits(page)
        assert widths["page"] <= WIDTH, (path, widths)
        assert widths["table"] <= widths["room"] + 1, (path, widths)
        shot(page, f"{language}-{path.replace('/', '-')}")


def test_the_browser_chooses_french_until_the_user_picks_english(page, live_server):
    expect(page.get_by_text("Live chat en ce moment")).to_be_visible()  # the home page's card, from the browser
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("body")).to_contain_text("Comptes et accès")  # our app's name
    expect(page.locator("body")).to_contain_text("Console de live chat")  # our sidebar entry
    expect(page.locator("body")).to_contain_text("Déconnexion")  # Django's own
    shot(page, "10-french-index")
    page.goto(live_server.url + "/admin/accounts/apitoken/")
    expect(page.locator("#result_list")).to_contain_text("valide")  # a token's state, ours
    expect(page.locator("#result_list")).to_contain_text("Début du jeton")  # a field's name, ours
    shot(page, "11-french-tokens")
    choose(page, "English")  # the choice wins over the French browser, on the next pages too
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.goto(live_server.url + "/admin/")
    expect(page.get_by_text("Live chat now")).to_be_visible()
    expect(page.locator("#nav-sidebar-apps h2", has_text="Accounts and access")).to_be_visible()  # the sidebar's
    shot(page, "12-english-index")
    choose(page, "Français")
    expect(page.locator("html")).to_have_attribute("lang", "fr")


def test_the_lists_fit_a_1366_px_screen_in_english_and_in_french(page, live_server):
    check_lists(page, live_server, "fr")
    choose(page, "English")
    check_lists(page, live_server, "en")
