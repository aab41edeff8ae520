"""The error pages in Debian's chromium, in English and in French (the back office's language cookie; the
browser says French either way): a reader refused the GDPR requests (403, the back office around it), a
missing page for anyone (404), a page that fails (500), and the sign-in form sent with an expired CSRF token.
Each page is themed (unfold's stylesheet and colours) and fits 1366 px. Screenshots go to
test-results/error_pages/."""

import pytest
from playwright.sync_api import expect

from accounts.models import Account, Role
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import new_pages, screenshots, sign_in
from tests.e2e.conftest import browser  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
expect.set_options(timeout=10_000)
shot = screenshots("error_pages")
WORDS = {
    "en": {
        "403": "Access denied",
        "404": "Page not found",
        "500": "Server error",
        "csrf": "The form could not be sent",
        "status": "Error 403",
        "home": "Back office home",
    },
    "fr": {
        "403": "Accès refusé",
        "404": "Page introuvable",
        "500": "Erreur du serveur",
        "csrf": "Le formulaire n'a pas pu être envoyé",
        "status": "Erreur 403",
        "home": "Accueil du back-office",
    },
}


def choose(page, server, language: str):
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server}])


def themed(page):
    """unfold's stylesheet applied: its font and its primary colour on the page's first action."""
    assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith("Inter")
    colour = page.locator(".error-action-primary").evaluate("a => getComputedStyle(a).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), colour
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366


@pytest.mark.parametrize("language", ["en", "fr"])
def test_error_pages_in_the_back_offices_theme_and_language(browser, live_server, settings, language):  # noqa: F811
    settings.ROOT_URLCONF = "tests.error_pages.failing_urls"
    words = WORDS[language]
    account = Account.objects.create(name="Bank")
    reader, _ = make_persona(account, Role.READER)
    with new_pages(browser, width=1366, height=860, locale="fr-FR") as new:
        page = new()
        choose(page, live_server.url, language)
        sign_in(page, live_server.url, reader.username, PASSWORD)
        expect(page.locator("#header-inner")).to_be_visible()

        response = page.goto(live_server.url + "/admin/dialogs/gdprrequest/")
        assert response.status == 403
        card = page.get_by_test_id("error-page")
        expect(card.get_by_role("heading", level=1)).to_have_text(words["403"])
        expect(card).to_contain_text(words["status"])
        expect(card).to_contain_text(reader.username)
        expect(page.locator("#nav-sidebar")).to_be_visible()  # still in the back office
        expect(page.locator("html")).to_have_attribute("lang", language)
        themed(page)
        shot(page, f"403-{language}")
        card.get_by_role("link", name=words["home"]).click()
        expect(page).to_have_url(live_server.url + "/admin/")

        anyone = new()
        choose(anyone, live_server.url, language)
        response = anyone.goto(live_server.url + "/nothing-here/")
        assert response.status == 404
        expect(anyone.get_by_role("heading", level=1)).to_have_text(words["404"])
        themed(anyone)
        shot(anyone, f"404-{language}")

        response = anyone.goto(live_server.url + "/somewhere/fails/")
        assert response.status == 500
        expect(anyone.get_by_role("heading", level=1)).to_have_text(words["500"])
        assert "RuntimeError" not in anyone.content()
        themed(anyone)
        shot(anyone, f"500-{language}")

        # The sign-in form kept open while its token went stale (the cookie is gone): refused, nobody signed in.
        anyone.goto(live_server.url + "/admin/login/")
        anyone.context.clear_cookies(name="csrftoken")
        anyone.fill("#id_username", reader.username)
        anyone.fill("#id_password", PASSWORD)
        anyone.click("[type=submit]")
        expect(anyone.get_by_role("heading", level=1)).to_have_text(words["csrf"])
        themed(anyone)
        shot(anyone, f"csrf-{language}")
        assert not any(cookie["name"] == "sessionid" for cookie in anyone.context.cookies())
