"""Account preferences: the same operations for the user's own account."""

import pytest

from preferences.models import AccountPreference, PreferenceChange

pytestmark = pytest.mark.django_db

ROOT = "/servlet/api/preferences/account"


def stored(account) -> dict:
    return dict(AccountPreference.objects.filter(account=account).values_list("name", "value"))


def test_an_administrator_sets_reads_and_deletes_account_preferences(client, personas):
    put = client.put(f"{ROOT}/support.email/help@example.org", **personas.alice.auth)
    assert put.status_code == 200
    assert put.json()["account"] == personas.account.name
    assert put.json()["value"] == "help@example.org"
    listing = client.get(ROOT, **personas.bob.auth).json()
    assert [(p["name"], p["value"]) for p in listing["preferences"]] == [("support.email", "help@example.org")]
    assert client.get(f"{ROOT}/support.email", **personas.bob.auth).json()["value"] == "help@example.org"
    assert client.delete(f"{ROOT}/support.email", **personas.alice.auth).status_code == 200
    assert stored(personas.account) == {}
    history = client.get("/servlet/api/preferences/history/account", **personas.alice.auth).json()["changes"]
    assert [c["action"] for c in history] == ["deleted", "added"]
    assert PreferenceChange.objects.filter(account=personas.account).count() == 2


def test_each_account_sees_only_its_own(client, personas):
    client.put(f"{ROOT}/theme/dark", **personas.alice.auth)
    client.put(f"{ROOT}/theme/light", **personas.charlie.auth)
    assert stored(personas.account) == {"theme": "dark"}
    assert stored(personas.other_account) == {"theme": "light"}
    mine = client.get(ROOT, **personas.charlie.auth).json()
    assert mine["account"] == personas.other_account.name
    assert [(p["name"], p["value"]) for p in mine["preferences"]] == [("theme", "light")]


def test_an_editor_cannot_change_them(client, personas):
    response = client.put(f"{ROOT}/theme/dark", **personas.bob.auth)
    assert response.status_code == 403
    assert stored(personas.account) == {}


def test_a_bot_only_key_is_refused_at_account_level(client, personas):
    response = client.put(f"{ROOT}/bot.no.group.uuid/00000000-0000-4000-8000-000000000000", **personas.alice.auth)
    assert response.status_code == 400
    assert "bot preference" in response.json()["error"]
    assert stored(personas.account) == {}


def test_without_credentials_401(client):
    assert client.get(ROOT).json()["code"] == "MISSING_CREDENTIALS"
