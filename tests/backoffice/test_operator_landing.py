"""Where the back office's login form sends its users (accounts/landing.py), through Django's test client: an
operator lands in the live-chat console; an operator sent to a page (?next=) goes there; administrators,
editors and readers land on the back office's home; a refused login stays on the form. The console page
speaks its user's back-office language."""

import pytest
from django.conf import settings
from django.urls import reverse

from accounts.models import Role
from tests.accounts.personas import PASSWORD, make_persona

pytestmark = pytest.mark.django_db
LOGIN = reverse("admin:login")
HOME = reverse("admin:index")
CONSOLE = reverse("livechat-console")


def log_in(client, role, next_page=HOME, password=PASSWORD):
    user, _ = make_persona("Demo", role)
    # What the form posts: its hidden "next" is the back office's home unless the address named a page.
    return client.post(LOGIN, {"username": user.username, "password": password, "next": next_page})


def test_an_operator_lands_in_the_console(client):
    response = log_in(client, Role.OPERATOR)
    assert (response.status_code, response["Location"]) == (302, CONSOLE)
    assert client.get(CONSOLE).status_code == 200
    # The back office is still theirs when they go to it.
    assert client.get(HOME).status_code == 200


def test_an_operator_sent_to_a_page_goes_to_that_page(client):
    callbacks = reverse("admin:livechat_callback_changelist")
    response = log_in(client, Role.OPERATOR, next_page=callbacks)
    assert (response.status_code, response["Location"]) == (302, callbacks)


@pytest.mark.parametrize("role", [Role.ADMINISTRATOR, Role.EDITOR, Role.READER])
def test_other_roles_land_on_the_back_offices_home(client, role):
    response = log_in(client, role)
    assert (response.status_code, response["Location"]) == (302, HOME)


def test_a_refused_login_stays_on_the_form(client):
    response = log_in(client, Role.OPERATOR, password="wrong")
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_the_console_speaks_its_users_language(client):
    user, _ = make_persona("Demo", Role.OPERATOR)
    client.force_login(user)
    english = client.get(CONSOLE).content.decode()
    assert '<html lang="en">' in english and "Suggested answers" in english
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    french = client.get(CONSOLE).content.decode()
    assert '<html lang="fr">' in french and "Réponses suggérées" in french and "Retour aux conversations" in french
