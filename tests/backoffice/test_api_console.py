"""The API console in a real browser (Debian's chromium, 1366 px wide): an administrator follows the link
on the back office's API access page, gets a token from the Authentication call, authorizes, and calls
protected calls (knowledge base export, bot preferences, matching groups) and talk with "Try it out" →
"Execute". Screenshots go to test-results/api_console/."""

import base64
import json
import re
from urllib.parse import parse_qsl

import pytest
from playwright.sync_api import expect

from accounts.models import ApiToken, Role
from accounts.roles import sync_role_groups
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)
shot = screenshots("api_console")


class Console:
    """The Swagger UI page, and the servlet calls it sent with their Authorization header."""

    def __init__(self, page, url: str):
        self.page = page
        self.url = url
        self.sent: list[dict] = []
        page.on("request", self.record)

    def record(self, request):
        if "/servlet/api/" in request.url and "/servlet/api/schema" not in request.url:
            self.sent.append(
                {"url": request.url, "authorization": request.headers.get("authorization"), "body": request.post_data}
            )

    def operation(self, tag: str, operation_id: str):
        """An operation's block, opened (Swagger UI's deep link names the group and the operation id)."""
        block = self.page.locator(f"#operations-{tag.replace(' ', '_')}-{operation_id}")
        if not block.is_visible():
            section = self.page.locator(f"#operations-tag-{tag.replace(' ', '_')}")
            section.click()
        expect(block).to_be_visible()
        if not block.locator(".opblock-body").is_visible():
            block.locator(".opblock-summary-control").click()
        block.locator(".try-out__btn").click()
        return block

    def execute(self, block) -> tuple[int, str]:
        before = len(self.sent)
        block.locator("button.execute").click()
        status = block.locator(".live-responses-table .response .response-col_status").first
        expect(status).to_have_text(re.compile(r"^\d{3}"))
        # A JSON answer is shown in a <pre>; a file (the exports) as a download link instead.
        shown = block.locator(".live-responses-table .response-col_description")
        expect(shown.locator("pre, a[download]").first).to_be_visible()
        pre = shown.locator("pre.microlight, pre")
        body = pre.first.inner_text() if pre.count() else ""
        assert len(self.sent) > before, "the console sent no servlet request"
        block.locator(".live-responses-table").scroll_into_view_if_needed()  # the answer, for the screenshot
        return int(status.inner_text()[:3]), body


@pytest.fixture
def administrator(demo_bot_live):  # noqa: F811 (fixture)
    sync_role_groups()
    user, _ = make_persona(demo_bot_live.account, Role.ADMINISTRATOR, login="ada")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def page(browser):  # noqa: F811 (fixture)
    context = back_office_context(browser, timeout=15_000)
    yield context.new_page()
    context.close()


def test_the_api_access_page_links_to_the_console(page, live_server, administrator, demo_bot_live):  # noqa: F811
    sign_in(page, live_server.url, "ada", PASSWORD)
    page.goto(live_server.url + "/admin/accounts/botapiaccess/")
    page.locator("#result_list").get_by_role("link", name="API access", exact=True).click()
    expect(page.locator("#bot-uuid")).to_have_text(str(demo_bot_live.uuid))
    link = page.get_by_role("link", name="/servlet/api/doc/")
    expect(link).to_be_visible()
    shot(page, "01-api-access-page", full_page=True)
    page.goto(live_server.url + link.get_attribute("href"))
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Bot platform")


def test_authorize_once_then_every_protected_call_carries_the_token(page, live_server, administrator, demo_bot_live):  # noqa: F811
    console = Console(page, live_server.url + "/servlet/api/doc/")
    page.goto(console.url)
    info = page.locator(".swagger-ui .information-container")
    expect(info).to_contain_text("Authenticate")
    expect(info).to_contain_text("/api/")
    shot(page, "02-console")

    # A token from the Authentication call, asked from the console itself.
    login = console.operation("Authentication", "servlet_api_authentication_create")
    login.locator("tr[data-property-name='login'] input").fill("ada")
    password = login.locator("tr[data-property-name='password'] input")
    expect(password).to_have_attribute("type", "password")
    password.fill(PASSWORD)
    status, body = console.execute(login)
    assert status == 200, body
    token = json.loads(body)["token"]
    assert ApiToken.objects.filter(user=administrator).count() == 2  # the persona's own, and this one
    shot(page, "03-token-from-the-authentication-call")

    page.locator(".auth-wrapper .authorize").click()
    dialog = page.locator(".dialog-ux .modal-ux")
    dialog.locator("input").fill(token)
    dialog.locator(".auth-btn-wrapper .authorize").click()
    expect(dialog.locator(".auth-btn-wrapper")).to_contain_text("Logout")
    shot(page, "04-authorized")
    dialog.locator(".btn-done").click()

    calls = [
        ("Knowledge base", "servlet_api_bot_knowledgebase_export_bot_uuid_exclude_gallery_retrieve"),
        ("Bot preferences", "servlet_api_preferences_bot_bot_uuid_retrieve"),
        ("Matching groups", "servlet_api_bot_matchinggroups_bot_uuid_retrieve"),
        ("Transfer Bot Data", "servlet_api_bot_gallery_export_bot_uuid_retrieve"),
    ]
    for number, (tag, operation_id) in enumerate(calls, start=5):
        console.sent.clear()
        block = console.operation(tag, operation_id)
        status, body = console.execute(block)
        assert status == 200, (operation_id, body[:300])
        assert console.sent[-1]["authorization"] == token, f"{operation_id} went out without the token"
        assert str(demo_bot_live.uuid) in console.sent[-1]["url"]  # the bot field came filled in
        shot(page, f"{number:02d}-{tag.lower().replace(' ', '-')}")


def test_talk_from_the_console_answers_with_the_knowledge(page, live_server, demo_bot_live):  # noqa: F811
    console = Console(page, live_server.url + "/servlet/api/doc/")
    page.goto(console.url)
    talk = console.operation("Chat", "servlet_api_chat_talk_bot_uuid_create")
    # The form's fields: the example's filled in, the others empty (no made-up sample values).
    field = lambda name: talk.locator(f"tr[data-property-name='{name}'] input[type=text]")  # noqa: E731
    expect(field("userInput")).to_have_value("Combien coûte le compte ?")
    expect(field("language")).to_have_value("fr")
    expect(field("variables")).to_have_value("")
    expect(talk.locator("tr[data-property-name='qualificationMode'] select")).to_have_value("")
    field("userInput").fill("Comment faire un virement ?")
    status, body = console.execute(talk)
    assert status == 200, body
    # Swagger UI sends the empty fields too, as empty values: the servlet reads them as absent. The console
    # makes its talks test dialogs (static/servlet/api_console.js).
    sent = parse_qsl(console.sent[-1]["body"], keep_blank_values=True)
    assert {name: value for name, value in sent if value} == {
        "userInput": "Comment faire un virement ?",
        "language": "fr",
        "space": "Defaut",
        "qualificationMode": "true",
    }
    answer = json.loads(body)
    assert answer["type"] == "talkResponse"
    text = base64.b64decode(answer["values"]["text"]).decode()
    assert "virement" in text.lower(), text
    shot(page, "09-talk", full_page=False)
