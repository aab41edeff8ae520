"""The SAML login in a real browser (Debian's chromium): the page plays CV5's SAML handling
(client-contract.md §2.4: a SAML_redirection answer → store atob(auth), go to
atob(redirection_url)&RelayState=<page>); chromium follows our login address to the identity provider
(pysaml2, on its own port), whose page posts the signed Response to our ACS by itself, and comes back to
the chatbox page; the stored token then gets answers. Screenshots go to test-results/saml/."""

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from accounts.saml import enabled
from preferences.services import Owner, set_preference
from tests.e2e.conftest import browser  # noqa: F401  (the chromium fixture)
from tests.saml.idp import ALICE, IdentityProvider

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "saml"

# What CV5 does with every answer when `saml.enable` is on (src/tools/axios.ts), around one call.
CV5_CALL = """async ([path, fields]) => {
  const body = new URLSearchParams({...fields, saml2_info: localStorage.getItem("saml") || ""});
  const data = await (await fetch("/servlet/api/" + path, {method: "POST", body})).json();
  const renew = (auth) => { if (auth) { try { localStorage.setItem("saml", atob(auth)); }
                                         catch { localStorage.setItem("saml", auth); } } };
  if (data.type === "SAML_redirection") {
    renew(atob(data.values.auth));
    window.location.href = `${atob(data.values.redirection_url)}&RelayState=${encodeURI(window.location.href)}`;
    return {redirected: true};
  }
  renew(data.values && data.values.auth);
  return {type: data.type, text: data.values && data.values.text && atob(data.values.text)};
}"""


def shot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def live_saml(live_server, transactional_db, settings, tmp_path):
    from accounts.saml.keys import generate
    from knowledge.demo.seed import seed_demo_bot

    settings.MATCHING_EMBEDDINGS = False
    key, cert = generate(tmp_path / "sp", "test-service-provider")
    settings.SAML_SP_KEY_FILE, settings.SAML_SP_CERT_FILE = str(key), str(cert)
    bot, _ = seed_demo_bot()
    enabled.forget()
    import urllib.request

    with urllib.request.urlopen(live_server.url + "/servlet/saml2/metadata", timeout=30) as answer:
        metadata = answer.read().decode("utf-8")
    with IdentityProvider(tmp_path / "idp", metadata) as idp:
        owner = Owner(bot=bot)
        set_preference(owner, "chatbox.auth.saml.idp.metadata", idp.metadata())
        set_preference(owner, "chatbox.auth.saml.menu.enabled", "true")
        yield live_server.url, str(bot.uuid), idp
    enabled.forget()


def test_a_visitor_logs_in_through_the_identity_provider_and_is_answered(browser, live_saml):  # noqa: F811
    base, bot, idp = live_saml
    context = browser.new_context(viewport={"width": 1100, "height": 760}, locale="fr-FR")
    context.set_default_timeout(20_000)
    page = context.new_page()
    # The page plays CV5 here: our own chatbox, which logs in by itself (the next test), stays out.
    page.route("**/static/chatbox/chatbox.js", lambda route: route.abort())
    visited = []
    page.on(
        "request", lambda request: request.is_navigation_request() and visited.append((request.method, request.url))
    )

    page.goto(f"{base}/demo/")
    shot(page, "1-chatbox-page-before-login")
    talk = [f"chat/talk/{bot}", {"userInput": "Quels sont vos horaires d'ouverture ?", "language": "fr"}]
    with page.expect_navigation(url=f"{base}/demo/", timeout=30_000):
        assert page.evaluate(CV5_CALL, talk) == {"redirected": True}
    page.wait_for_load_state()
    shot(page, "2-back-on-the-chatbox-page")

    # The browser went: our login address → the identity provider → (its form, posted by itself) our
    # ACS → back to the page it came from.
    steps = [(method, urlsplit(url).netloc, urlsplit(url).path) for method, url in visited]
    ours, theirs = urlsplit(base).netloc, urlsplit(idp.base).netloc
    assert steps == [
        ("GET", ours, "/demo/"),
        ("GET", ours, "/servlet/saml2/login"),
        ("GET", theirs, "/sso/redirect"),
        ("POST", ours, "/servlet/saml2/acs"),
        ("GET", ours, "/demo/"),
    ]
    assert idp.logins == 1

    # Back on the page, the stored token gets the answer, with values.auth renewing it.
    answer = page.evaluate(CV5_CALL, talk)
    assert answer["type"] == "talkResponse" and "17 h 30" in answer["text"], answer
    token = page.evaluate("localStorage.getItem('saml')")
    assert ":" in token

    page.goto(f"{base}/servlet/api/saml2/userinfo?botUUID={bot}&saml2_info={token}")
    expect(page.locator("body")).to_contain_text("alice@example.org")
    shot(page, "3-userinfo")
    assert page.evaluate("JSON.parse(document.body.innerText)")["attribute"] == ALICE

    # A login sent back anywhere else is refused before the identity provider is asked.
    page.goto(f"{base}/demo/")
    with page.expect_navigation(timeout=30_000):
        page.evaluate(
            """async ([path, fields]) => {
            const body = new URLSearchParams({...fields, saml2_info: ""});
            const data = await (await fetch("/servlet/api/" + path, {method: "POST", body})).json();
            window.location.href = `${atob(data.values.redirection_url)}&RelayState=https://evil.example/`;
        }""",
            talk,
        )
    expect(page.locator("body")).to_contain_text("RelayState")
    shot(page, "4-open-redirect-refused")
    assert idp.logins == 1
    context.close()


def test_our_chatbox_logs_the_visitor_in_and_then_talks(browser, live_saml):  # noqa: F811
    """Our own chatbox (static/chatbox/chatbox.js) on a SAML bot: its first chat call is answered
    SAML_redirection, it keeps the token and goes to log in, comes back to the page, and talks."""
    base, bot, idp = live_saml
    context = browser.new_context(viewport={"width": 1100, "height": 760}, locale="fr-FR")
    context.set_default_timeout(30_000)
    page = context.new_page()
    visited = []
    page.on("request", lambda request: request.is_navigation_request() and visited.append(urlsplit(request.url).path))
    page.goto(f"{base}/demo/")
    # The chatbox went to log in on its own and the identity provider sent the browser back here.
    page.wait_for_url(f"{base}/demo/", timeout=30_000)
    expect(page.locator(".dcb-row-bot:not(.dcb-typing)").first).to_contain_text("Clara")
    assert visited[:5] == ["/demo/", "/servlet/saml2/login", "/sso/redirect", "/servlet/saml2/acs", "/demo/"]
    assert idp.logins == 1
    token = page.evaluate(f"localStorage.getItem('dydu.chatbox.saml2_{bot}')")
    assert token and ":" in token

    box = page.get_by_role("textbox", name=re.compile("Votre question|Your question"))
    box.fill("Quels sont vos horaires d'ouverture ?")
    box.press("Enter")
    expect(page.locator(".dcb-row-bot:not(.dcb-typing)").last).to_contain_text("17 h 30")
    shot(page, "5-our-chatbox-after-login")
    assert idp.logins == 1  # no second login: the stored token is sent with every call
    context.close()
