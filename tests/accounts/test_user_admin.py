"""An account's administrator manages the account's users in the back office: adds one with a role (who
can then sign in), never into another account, never sees or changes a superuser, and cannot hand out
Django's staff, superuser, group or permission flags; other roles do not reach the users page."""

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Account, Membership, Role
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db
ADD = "/admin/auth/user/add/"


@pytest.fixture
def alice(client):
    account = Account.objects.create(name="Account A")
    user, _ = make_persona(account, Role.ADMINISTRATOR, login="alice")
    client.force_login(user)
    return user


def new_user(account, role="editor", login="erin"):
    return {
        "username": login,
        "usable_password": "true",
        "password1": "a-long enough passphrase",
        "password2": "a-long enough passphrase",
        "membership-TOTAL_FORMS": "1",
        "membership-INITIAL_FORMS": "0",
        "membership-MIN_NUM_FORMS": "0",
        "membership-MAX_NUM_FORMS": "1",
        "membership-0-account": str(account.pk),
        "membership-0-role": role,
        "_save": "Save",
    }


def test_an_administrator_adds_a_user_to_their_account(client, alice):
    response = client.post(ADD, new_user(alice.membership.account))
    assert response.status_code == 302, response.content.decode()[-2000:]
    erin = get_user_model().objects.get(username="erin")
    assert (erin.membership.account, erin.membership.role) == (alice.membership.account, Role.EDITOR)
    assert erin.is_staff and not erin.is_superuser
    assert list(erin.groups.values_list("name", flat=True)) == ["Editors"]
    client.logout()
    assert client.login(username="erin", password="a-long enough passphrase")
    assert client.get("/admin/knowledge/knowledgeitem/").status_code == 200


def test_a_user_cannot_be_added_to_another_account(client, alice):
    other = Account.objects.create(name="Account B")
    response = client.post(ADD, new_user(other))
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not get_user_model().objects.filter(username="erin").exists()


def test_superusers_and_flags_stay_out_of_reach(client, alice):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw-for-tests-only")
    Membership.objects.create(user=boss, account=alice.membership.account, role=Role.ADMINISTRATOR)
    listing = client.get("/admin/auth/user/").content.decode()
    assert "alice" in listing and "boss@example.org" not in listing
    assert client.get(f"/admin/auth/user/{boss.pk}/change/").status_code == 302  # not found for her
    assert client.get(f"/admin/auth/user/{boss.pk}/password/").status_code in (302, 404)

    dana, _ = make_persona(alice.membership.account, Role.READER, login="dana")
    page = client.get(f"/admin/auth/user/{dana.pk}/change/").content.decode()
    assert 'name="is_superuser"' not in page and 'name="groups"' not in page
    client.post(
        f"/admin/auth/user/{dana.pk}/change/",
        {
            "username": "dana",
            "is_active": "on",
            "is_superuser": "on",
            "is_staff": "on",
            "membership-TOTAL_FORMS": "1",
            "membership-INITIAL_FORMS": "1",
            "membership-MIN_NUM_FORMS": "0",
            "membership-MAX_NUM_FORMS": "1",
            "membership-0-id": str(dana.membership.pk),
            "membership-0-user": str(dana.pk),
            "membership-0-account": str(alice.membership.account.pk),
            "membership-0-role": "editor",
        },
    )
    dana.refresh_from_db()
    assert not dana.is_superuser
    assert dana.membership.role == Role.EDITOR  # the role is hers to give
    assert list(dana.groups.values_list("name", flat=True)) == ["Editors"]


@pytest.mark.parametrize("role", [Role.EDITOR, Role.OPERATOR, Role.READER])
def test_other_roles_do_not_reach_the_users_page(client, role):
    user, _ = make_persona("Account A", role)
    client.force_login(user)
    assert client.get("/admin/auth/user/").status_code == 403
    assert client.get(ADD).status_code == 403
