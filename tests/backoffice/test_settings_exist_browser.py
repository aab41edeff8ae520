"""Settings that exist (issue 25 item 5), in chromium as the demo account's administrator, in English and in
French: the live-chat settings list has the demo bot's row with the defaults in force (no "No results found"),
the bot preferences list names the matching group behind bot.no.group.uuid, an empty GDPR list says what it is
for and how it fills, and the global sentences list shows the welcome sentence as text, not markup. The pages
fit a 1366 px screen. Screenshots go to test-results/settings/."""

import pytest
from playwright.sync_api import expect

from accounts.models import Account, Role
from dialogs.models import GdprRequest
from knowledge.models import MatchingGroup
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, list_widths, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("settings", full_page=True)
WIDTH = 1366

SAID = {
    "en": {
        "group": "Matching group: Non",
        "empty_title": "Nothing here yet",
        "gdpr": "Visitors' requests to get or delete their data.",
        "welcome": "Hello, I am Clara, the assistant of Banque Exemple.",
        "default": "Default: 300.",
        "timeouts": ["queue: 900 s", "silent visitor: 300 s", "silent operator: 180 s", "visitor gone: 90 s"],
    },
    "fr": {
        "group": "Groupe de correspondance : Non",
        "empty_title": "Rien pour l’instant",
        "gdpr": "Demandes des visiteurs pour obtenir ou supprimer leurs données.",
        "welcome": "Bonjour, je suis Clara, l'assistante de la Banque Exemple.",
        "default": "Par défaut : 300.",
        "timeouts": ["file d’attente : 900 s", "visiteur silencieux : 300 s", "visiteur parti : 90 s"],
    },
}


@pytest.fixture(params=["en", "fr"])
def language(request):
    return request.param


@pytest.fixture
def page(browser, live_server, demo_bot_live, language):  # noqa: F811
    context = back_office_context(browser, width=WIDTH, height=860)
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    user, _ = make_persona(Account.objects.get(name="Demo"), Role.ADMINISTRATOR, login="claire")
    sign_in(page, live_server.url, user.username, PASSWORD)
    expect(page.locator("main, #main").first).to_be_visible()
    yield page
    context.close()


def fits(page) -> bool:
    """Nothing wider than the window, and the list's table not scrolled sideways."""
    widths = list_widths(page)
    return widths["page"] <= WIDTH and widths["table"] <= widths["room"] + 1


def test_the_administrator_finds_the_settings_in_force(page, live_server, demo_bot_live, language):  # noqa: F811
    said = SAID[language]
    expect(page.locator("html")).to_have_attribute("lang", language)

    # Live-chat settings: the bot's row is there from its creation, with the defaults in force.
    page.goto(live_server.url + "/admin/livechat/livechatsettings/")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(demo_bot_live.name)
    for line in said["timeouts"]:
        expect(rows.first).to_contain_text(line)
    expect(page.get_by_text("No results found")).to_have_count(0)
    expect(page.locator("a[href$='/livechatsettings/add/']")).to_have_count(0)  # no second row
    shot(page, f"{language}-01-livechat-settings")
    assert fits(page)
    rows.first.locator("a").first.click()
    expect(page.locator("#id_visitor_timeout_seconds")).to_have_value("300")
    expect(page.get_by_text(said["default"])).to_be_visible()
    shot(page, f"{language}-02-livechat-settings-form")

    # Preferences: the UUID value, and under it the group it names.
    group = MatchingGroup.objects.get(bot=demo_bot_live, name="Non")
    page.goto(live_server.url + "/admin/preferences/botpreference/")
    row = page.locator("#result_list tbody tr").filter(has_text="bot.no.group.uuid")
    expect(row).to_contain_text(str(group.uuid))
    expect(row.locator("[data-meaning]")).to_have_text(said["group"])
    assert fits(page)
    shot(page, f"{language}-03-bot-preferences")
    row.locator("a").first.click()
    expect(page.get_by_text(said["group"])).to_be_visible()
    shot(page, f"{language}-04-bot-preference-form")

    # An empty GDPR list: what the page is for and how it fills, no "Create a new item".
    assert not GdprRequest.objects.exists()
    page.goto(live_server.url + "/admin/dialogs/gdprrequest/")
    expect(page.get_by_text(said["empty_title"])).to_be_visible()
    expect(page.locator("[data-empty-state=about]")).to_contain_text(said["gdpr"])
    expect(page.get_by_text("Create a new item")).to_have_count(0)
    shot(page, f"{language}-05-gdpr-empty")

    # Global sentences: the welcome sentence reads as text, neither its tags nor bold.
    page.goto(live_server.url + "/admin/knowledge/globalsentence/?q=Clara")
    cells = page.locator("#result_list")
    expect(cells).to_contain_text(said["welcome"])
    expect(cells).not_to_contain_text("<b>")
    expect(cells.locator("tbody b")).to_have_count(0)
    assert fits(page)
    shot(page, f"{language}-06-global-sentences")
