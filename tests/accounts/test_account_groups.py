"""Account, BO users and Competencies groups: each account sees and changes only its own."""

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Competency, Membership
from bots.models import Bot

from .personas import make_persona

pytestmark = pytest.mark.django_db

API = "/servlet/api"
JSON = "application/json"


class TestAccount:
    def test_a_user_sees_the_bots_of_their_account_only(self, client, demo_bot, personas):
        theirs = Bot.objects.create(name="Charlie's bot", account=personas.other_account)
        mine = client.get(f"{API}/account/bots", **personas.bob.auth).json()
        assert [bot["botUUID"] for bot in mine] == [str(demo_bot.uuid)]
        assert mine[0]["languages"] == ["fr", "en"]
        other = client.get(f"{API}/account/bots", **personas.charlie.auth).json()
        assert [bot["botUUID"] for bot in other] == [str(theirs.uuid)]

    def test_account_says_who_the_caller_is(self, client, demo_bot, personas):
        body = client.get(f"{API}/account", **personas.bob.auth).json()
        assert (body["login"], body["role"], body["account"]) == (personas.bob.login, "editor", personas.account.name)
        assert [bot["name"] for bot in body["bots"]] == [demo_bot.name]

    def test_without_credentials_401(self, client):
        assert client.get(f"{API}/account/bots").status_code == 401


class TestBackOfficeUsers:
    def new_user(self, **fields):
        return {"login": "dana", "password": "a-long enough passphrase", "email": "dana@example.org", **fields}

    def test_an_administrator_adds_a_user_to_their_account(self, client, personas):
        response = client.post(f"{API}/bousers", self.new_user(role="editor"), **personas.alice.auth)
        assert response.status_code == 201
        assert response.json()["login"] == "dana"
        assert response.json()["role"] == "editor"
        assert response.json()["account"] == personas.account.name
        dana = get_user_model().objects.get(username="dana")
        assert dana.check_password("a-long enough passphrase")
        assert dana.is_staff and not dana.is_superuser
        assert Membership.objects.get(user=dana).account == personas.account
        # The new user can get a token at once.
        token = client.post(
            f"{API}/authentication", {"login": "dana", "password": "a-long enough passphrase"}, REMOTE_ADDR="10.9.9.1"
        )
        assert token.status_code == 200
        listed = client.get(f"{API}/bousers", **personas.bob.auth).json()
        assert "dana" in [user["login"] for user in listed]
        assert client.get(f"{API}/bousers/dana", **personas.bob.auth).json()["role"] == "editor"

    def test_only_administrators_add_users(self, client, personas):
        response = client.post(f"{API}/bousers", self.new_user(), **personas.bob.auth)
        assert response.status_code == 403
        assert not get_user_model().objects.filter(username="dana").exists()

    def test_an_outsider_adds_to_their_own_account_never_to_another(self, client, personas):
        response = client.post(f"{API}/bousers", self.new_user(), **personas.charlie.auth)
        assert response.status_code == 201
        assert Membership.objects.get(user__username="dana").account == personas.other_account
        assert client.get(f"{API}/bousers/{personas.alice.login}", **personas.charlie.auth).status_code == 404

    @pytest.mark.parametrize(
        ("fields", "code", "field"),
        [
            ({"login": ""}, "MISSING_FIELD", "login"),
            ({"login": "bad login!"}, "INVALID_FIELD", "login"),
            ({"role": "owner"}, "INVALID_FIELD", "role"),
            ({"email": "not-an-email"}, "INVALID_FIELD", "email"),
            ({"password": ""}, "MISSING_FIELD", "password"),
            ({"password": "123"}, "INVALID_FIELD", "password"),
        ],
    )
    def test_bad_input_is_refused_and_creates_nobody(self, client, personas, fields, code, field):
        response = client.post(f"{API}/bousers", self.new_user(**fields), **personas.alice.auth)
        assert response.status_code == 400
        assert response.json()["code"] == code
        assert response.json()["field"] == field
        assert not get_user_model().objects.filter(username__in=["dana", "bad login!"]).exists()

    def test_a_taken_login_is_409(self, client, personas):
        response = client.post(f"{API}/bousers", self.new_user(login=personas.bob.login), **personas.alice.auth)
        assert response.status_code == 409
        assert response.json()["code"] == "ALREADY_EXISTS"
        assert Membership.objects.get(user=personas.bob.user).role == "editor"


class TestCompetencies:
    def test_an_administrator_adds_lists_and_deletes_competencies(self, client, personas):
        added = client.post(f"{API}/competencies", {"name": "Cartes bancaires"}, **personas.alice.auth)
        assert added.status_code == 201
        assert added.json()["name"] == "Cartes bancaires"
        assert added.json()["createdBy"] == personas.alice.login
        again = client.put(f"{API}/competencies/cartes BANCAIRES", **personas.alice.auth)
        assert again.status_code == 200  # the same competency, whatever the case
        client.put(f"{API}/competencies/Crédits", **personas.alice.auth)
        names = [c["name"] for c in client.get(f"{API}/competencies", **personas.bob.auth).json()]
        assert names == ["Cartes bancaires", "Crédits"]
        deleted = client.delete(f"{API}/competencies/Crédits", **personas.alice.auth)
        assert deleted.status_code == 200
        assert list(Competency.objects.filter(account=personas.account).values_list("name", flat=True)) == [
            "Cartes bancaires"
        ]
        assert client.delete(f"{API}/competencies/Crédits", **personas.alice.auth).status_code == 404

    def test_an_editor_reads_but_does_not_change_them(self, client, personas):
        client.put(f"{API}/competencies/Cartes", **personas.alice.auth)
        assert client.get(f"{API}/competencies/Cartes", **personas.bob.auth).status_code == 200
        assert client.put(f"{API}/competencies/Prêts", **personas.bob.auth).status_code == 403
        assert client.delete(f"{API}/competencies/Cartes", **personas.bob.auth).status_code == 403
        assert Competency.objects.filter(account=personas.account).count() == 1

    def test_an_outsider_neither_sees_nor_deletes_another_account_s_competencies(self, client, personas):
        client.put(f"{API}/competencies/Cartes", **personas.alice.auth)
        assert client.get(f"{API}/competencies", **personas.charlie.auth).json() == []
        assert client.delete(f"{API}/competencies/Cartes", **personas.charlie.auth).status_code == 404
        assert Competency.objects.filter(account=personas.account).count() == 1

    def test_a_blank_or_too_long_name_is_refused(self, client, personas):
        assert client.post(f"{API}/competencies", {"name": "  "}, **personas.alice.auth).status_code == 400
        assert client.put(f"{API}/competencies/{'x' * 101}", **personas.alice.auth).status_code == 400
        assert not Competency.objects.exists()

    def test_an_operator_lists_competencies(self, client, personas):
        _, token = make_persona(personas.account, "operator")
        assert client.get(f"{API}/competencies", HTTP_AUTHORIZATION=token).status_code == 200
