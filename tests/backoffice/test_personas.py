"""Each role in a real browser (Debian's chromium, the live server, a 1366 px wide screen): what an
administrator, an editor, an operator and a reader of the demo account see in the sidebar and may do;
a page beyond the role answers 403; another account's bot is never shown. The users are made as
POST /servlet/api/bousers makes them: a membership, nothing granted by hand. Screenshots go to
test-results/personas/."""

import pytest
from playwright.sync_api import expect

from accounts.models import Account, Role
from bots.models import Bot
from knowledge.models import KnowledgeItem
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("personas")
OTHER_BOT = "Bot of another account"


@pytest.fixture
def page(browser, live_server, demo_bot_live):  # noqa: F811
    context = back_office_context(browser, height=860, locale=None)  # the browser's own locale
    yield context.new_page()
    context.close()


@pytest.fixture
def other_bot(demo_bot_live):  # noqa: F811
    bot = Bot.objects.create(name=OTHER_BOT, account=Account.objects.create(name="Another account"))
    item = KnowledgeItem.objects.create(bot=bot, label="Another account's secret item")
    return bot, item


def log_in(page, server, role):
    user, _ = make_persona(Account.objects.get(name="Demo"), role, login=f"{role}-persona")
    sign_in(page, server.url, user.username, PASSWORD)
    expect(page.locator("#main, main").first).to_be_visible()
    return user


def expect_areas(page, shown: list[str], hidden: list[str]):
    """The sidebar lists the pages the role may open (accounts/navigation.py), and none other."""
    for name in shown:
        expect(link(page, name)).to_be_visible()
    for name in hidden:
        expect(link(page, name)).to_have_count(0)


def link(page, name):
    # A sidebar entry: its title follows its icon's name inside the link.
    return page.locator(f"#nav-sidebar-apps a:has(span:text-is('{name}'))").first


def expect_forbidden(page, url):
    response = page.goto(url)
    assert response.status == 403, url


def expect_not_shown(page, server, other_bot):
    _, item = other_bot
    page.goto(server.url + "/admin/bots/bot/")
    expect(page.locator("#result_list")).to_contain_text("Demo")
    expect(page.locator("body")).not_to_contain_text(OTHER_BOT)
    # Its pages are not found for this user (Django's admin says so and goes back to the index).
    page.goto(f"{server.url}/admin/knowledge/knowledgeitem/{item.pk}/change/")
    expect(page.locator("body")).not_to_contain_text("secret item")
    assert not page.url.endswith(f"/{item.pk}/change/")


def test_an_administrator_sees_every_area_of_their_account(page, live_server, other_bot):
    log_in(page, live_server, Role.ADMINISTRATOR)
    expect_areas(
        page,
        shown=["Knowledge items", "Dialogs", "GDPR requests", "Bot preferences", "Server errors", "Live chat console"],
        hidden=["Groups"],
    )
    shot(page, "10-administrator-index")
    page.goto(live_server.url + "/admin/dialogs/gdprrequest/")
    expect(page.locator("h1, h2").filter(has_text="GDPR request").first).to_be_visible()
    page.goto(live_server.url + "/admin/auth/user/")
    expect(page.locator("#result_list")).to_contain_text("administrator-persona")
    expect(page.locator("#result_list")).not_to_contain_text("admin@example.org")  # a superuser: not theirs
    shot(page, "11-administrator-users")
    # The bot's settings are the administrator's: its time zone among them.
    demo = Bot.objects.get(account__name="Demo")
    page.goto(f"{live_server.url}/admin/bots/bot/{demo.pk}/change/")
    expect(page.locator("#id_time_zone")).to_have_value("UTC")
    page.locator("#id_time_zone").scroll_into_view_if_needed()
    shot(page, "12-administrator-bot-time-zone")
    expect_forbidden(page, live_server.url + "/admin/auth/group/")
    expect_not_shown(page, live_server, other_bot)


def test_an_editor_saves_a_knowledge_item_but_not_beyond_their_role(page, live_server, demo_bot_live, other_bot):  # noqa: F811
    log_in(page, live_server, Role.EDITOR)
    expect_areas(
        page, shown=["Knowledge items", "Dialogs", "Bot preferences"], hidden=["GDPR requests", "Live chat console"]
    )
    shot(page, "20-editor-index")
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Account fees")
    page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/{item.pk}/change/")
    page.fill("#id_label", "Account fees and charges")
    page.locator("[name=_save]").first.click()
    expect(page.locator("body")).to_contain_text("was changed successfully")
    shot(page, "21-editor-saved-an-item")
    assert KnowledgeItem.objects.get(pk=item.pk).label == "Account fees and charges"
    expect_forbidden(page, live_server.url + "/admin/dialogs/gdprrequest/")
    shot(page, "22-editor-403-gdpr")
    expect_forbidden(page, live_server.url + "/admin/preferences/botpreference/add/")
    expect_not_shown(page, live_server, other_bot)


def test_an_operator_lands_in_the_console_and_reads_without_editing(page, live_server, demo_bot_live, other_bot):  # noqa: F811
    log_in(page, live_server, Role.OPERATOR)
    # Operators land in the live-chat console (accounts/landing.py); the back office is a click away.
    expect(page).to_have_url(f"{live_server.url}/livechat/")
    expect(page.locator("body")).not_to_contain_text("Only operators and administrators")
    # pytest-django's live server speaks no websocket: the console stays "Connexion…" here. The connected
    # console, with visitors, is in test-results/livechat (tests/e2e/test_livechat.py, a real daphne).
    shot(page, "31-operator-console")
    page.goto(live_server.url + "/admin/")
    expect_areas(page, shown=["Live chat console", "Dialogs", "Callbacks"], hidden=["GDPR requests", "Server errors"])
    shot(page, "30-operator-index")
    link(page, "Live chat console").click()
    expect(page).to_have_url(f"{live_server.url}/livechat/")
    expect_forbidden(page, live_server.url + "/admin/knowledge/knowledgeitem/add/")
    expect_forbidden(page, live_server.url + "/admin/preferences/botpreference/")
    expect_not_shown(page, live_server, other_bot)


def test_a_reader_reads_knowledge_and_cannot_save(page, live_server, demo_bot_live, other_bot):  # noqa: F811
    log_in(page, live_server, Role.READER)
    expect_areas(page, shown=["Knowledge items", "Dialogs", "Bot preferences"], hidden=["GDPR requests"])
    shot(page, "40-reader-index")
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Account fees")
    page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/{item.pk}/change/")
    expect(page.locator("body")).to_contain_text("Account fees")
    expect(page.locator("[name=_save]")).to_have_count(0)
    expect(page.locator("#id_label")).to_have_count(0)  # shown as text, not as a field
    shot(page, "41-reader-item-read-only")
    # A save posted by hand (with a valid CSRF token, so only the right is missing) is refused as well.
    csrf = next(cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "csrftoken")
    response = page.request.post(
        f"{live_server.url}/admin/knowledge/knowledgeitem/{item.pk}/change/",
        form={"label": "Changed by a reader"},
        headers={"X-CSRFToken": csrf, "Referer": page.url},
    )
    assert response.status == 403
    assert KnowledgeItem.objects.get(pk=item.pk).label == "Account fees"
    expect_forbidden(page, live_server.url + "/admin/knowledge/knowledgeitem/add/")
    expect_forbidden(page, live_server.url + "/livechat/")
    expect_not_shown(page, live_server, other_bot)
