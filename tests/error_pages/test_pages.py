"""The error pages (accounts/error_pages.py) through Django's own handling: 403, 404, 500 and a refused CSRF
token are pages in the back office's theme (unfold's stylesheet; the sidebar for staff) and language (its
cookie, never the browser's), while servlet calls keep their JSON errors; a refused form changes nothing."""

import pytest
from django.test import Client

from accounts.models import Account, Role
from tests.accounts.personas import PASSWORD, make_persona

pytestmark = pytest.mark.django_db
THEME = "unfold/css/styles.css"


@pytest.fixture
def account():
    return Account.objects.create(name="Bank")


def signed_in(client, account, role, language="en"):
    user, _ = make_persona(account, role)
    client.force_login(user)
    client.cookies["django_language"] = language
    return user


def test_a_reader_is_refused_the_gdpr_page_in_the_back_office(client, account):
    reader = signed_in(client, account, Role.READER)
    response = client.get("/admin/dialogs/gdprrequest/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 403 and response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert THEME in page and 'id="nav-sidebar"' in page  # the back office around it
    assert 'data-testid="error-page"' in page and 'data-status="403"' in page
    assert "Access denied" in page and f"Your account {reader.username} may not open this page" in page
    assert 'href="/admin/"' in page and "Sign in with another account" in page
    assert '<html lang="en"' in page  # the user's choice (the cookie) wins over the browser's French


def test_the_same_page_in_french(client, account):
    signed_in(client, account, Role.READER, "fr")
    page = client.get("/admin/dialogs/gdprrequest/").content.decode()
    assert '<html lang="fr"' in page
    assert "Accès refusé" in page and "Erreur 403" in page and "Accueil du back-office" in page


def test_a_missing_page_for_staff_and_for_anyone(client, account):
    signed_in(client, account, Role.EDITOR)
    staff = client.get("/admin/nothing-here/")
    assert staff.status_code == 404
    assert "Page not found" in staff.content.decode() and "Back office home" in staff.content.decode()
    anyone = Client().get("/nothing-here/")
    page = anyone.content.decode()
    assert anyone.status_code == 404 and THEME in page and "Page not found" in page
    assert 'href="/"' in page and "Back office home" not in page and 'id="nav-sidebar"' not in page
    french = Client()
    french.cookies["django_language"] = "fr"
    assert "Page introuvable" in french.get("/nothing-here/").content.decode()


@pytest.mark.parametrize("path", ["/servlet/api/nothing-here", "/api/nothing-here", "/servlet/nothing-here"])
def test_servlet_paths_keep_their_json_errors(client, path):
    response = client.get(path)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json() == {"error": f"No servlet answers at {path}.", "code": "NOT_FOUND"}


def test_a_bad_host_keeps_its_answers(client):
    """handler400 (config/urls.py): JSON on servlet paths, Django's page elsewhere."""
    servlet = client.get("/servlet/api/serverstatus", HTTP_HOST="evil.example")
    assert servlet.status_code == 400 and servlet.json()["code"] == "INVALID_HOST"
    assert client.get("/admin/", HTTP_HOST="evil.example").status_code == 400


def test_a_failure_is_a_themed_500_page_and_json_for_a_servlet(settings, account):
    settings.ROOT_URLCONF = "tests.error_pages.failing_urls"
    browser = Client(raise_request_exception=False)
    browser.cookies["django_language"] = "fr"
    response = browser.get("/somewhere/fails/")
    page = response.content.decode()
    assert response.status_code == 500 and THEME in page and 'data-status="500"' in page
    assert "Erreur du serveur" in page and "RuntimeError" not in page and "Traceback" not in page
    user, _ = make_persona(account, Role.ADMINISTRATOR)
    browser.force_login(user)
    assert "Erreur du serveur" in browser.get("/admin/fails/").content.decode()
    servlet = Client(raise_request_exception=False).get("/servlet/api/fails")
    assert servlet.status_code == 500
    assert servlet.json() == {"error": "The server failed to answer; the failure is logged.", "code": "INTERNAL_ERROR"}


def test_a_form_without_its_csrf_cookie_is_refused_with_a_page_and_changes_nothing(account):
    user, _ = make_persona(account, Role.ADMINISTRATOR)
    browser = Client(enforce_csrf_checks=True)
    response = browser.post("/admin/login/", {"username": user.username, "password": PASSWORD})
    page = response.content.decode()
    assert response.status_code == 403 and THEME in page and 'data-code="csrf"' in page
    assert "The form could not be sent" in page and "did not send this site&#x27;s cookie" in page
    assert "Nothing was changed." in page
    assert "_auth_user_id" not in browser.session  # not signed in


def test_a_form_with_a_stale_token_is_refused_in_french(account):
    user, _ = make_persona(account, Role.ADMINISTRATOR)
    browser = Client(enforce_csrf_checks=True)
    browser.cookies["django_language"] = "fr"
    browser.get("/admin/login/")  # sets the CSRF cookie
    response = browser.post(
        "/admin/login/", {"username": user.username, "password": PASSWORD, "csrfmiddlewaretoken": "x" * 64}
    )
    page = response.content.decode()
    assert response.status_code == 403
    assert "Le formulaire n&#x27;a pas pu être envoyé" in page and "jeton de sécurité du formulaire" in page
    assert "_auth_user_id" not in browser.session


def test_the_token_page_under_a_servlet_path_gets_a_page_not_json(account):
    """/servlet/authentication.html is a form people fill: its refused CSRF token is a page."""
    browser = Client(enforce_csrf_checks=True)
    response = browser.post("/servlet/authentication.html", {"login": "someone", "password": "x"})
    assert response.status_code == 403 and response["Content-Type"].startswith("text/html")
    assert "The form could not be sent" in response.content.decode()
