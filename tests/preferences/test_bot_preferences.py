"""Bot preferences: PUT /preferences/bot/{botUUID}/{name}/{value}, read all or one, delete, history;
checked against the registry of known keys; only the bot's account, as its role allows."""

import pytest

from knowledge.models import MatchingGroup
from preferences.models import BotPreference, PreferenceChange
from preferences.services import bot_flag, bot_value
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def demo_bot_without_preferences(demo_bot):
    """These tests start from a bot with no preference; the demo seeds one (bot.no.group.uuid, its "no"
    group for slot filling), which tests/slots covers."""
    BotPreference.objects.filter(bot=demo_bot).delete()
    PreferenceChange.objects.filter(bot=demo_bot).delete()


ROOT = "/servlet/api/preferences"
JSON = "application/json"


def url(bot, *parts) -> str:
    return "/".join([ROOT, "bot", str(bot.uuid), *parts])


def stored(bot) -> dict:
    return dict(BotPreference.objects.filter(bot=bot).values_list("name", "value"))


def test_put_stores_a_preference_and_answers_the_stored_pair(client, demo_bot, personas):
    response = client.put(url(demo_bot, "bot.servicename", "Banque Exemple"), **personas.alice.auth)
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["value"], body["botUUID"]) == ("bot.servicename", "Banque Exemple", str(demo_bot.uuid))
    assert body["updatedBy"] == personas.alice.login
    assert stored(demo_bot) == {"bot.servicename": "Banque Exemple"}
    assert bot_value(demo_bot, "bot.servicename") == "Banque Exemple"


def test_the_api_prefix_without_servlet_works_too(client, demo_bot, personas):
    response = client.put(f"/api/preferences/bot/{demo_bot.uuid}/some.key/x/", **personas.alice.auth)
    assert response.status_code == 200
    assert stored(demo_bot) == {"some.key": "x"}


def test_read_all_and_one_then_delete(client, demo_bot, personas):
    client.put(url(demo_bot, "livechat.createmonitoreddialogs", "true"), **personas.alice.auth)
    client.put(url(demo_bot, "custom.colour", "blue"), **personas.alice.auth)
    everything = client.get(url(demo_bot), **personas.bob.auth).json()
    assert [(p["name"], p["value"], p["known"]) for p in everything["preferences"]] == [
        ("custom.colour", "blue", False),
        ("livechat.createmonitoreddialogs", "true", True),
    ]
    one = client.get(url(demo_bot, "custom.colour"), **personas.bob.auth)
    assert one.status_code == 200
    assert one.json()["value"] == "blue"
    deleted = client.delete(url(demo_bot, "custom.colour"), **personas.alice.auth)
    assert deleted.status_code == 200
    assert deleted.json() == {"botUUID": str(demo_bot.uuid), "name": "custom.colour", "value": "blue", "deleted": True}
    gone = client.get(url(demo_bot, "custom.colour"), **personas.alice.auth)
    assert gone.status_code == 404
    assert gone.json()["code"] == "UNKNOWN_PREFERENCE"
    assert client.delete(url(demo_bot, "custom.colour"), **personas.alice.auth).status_code == 404


@pytest.mark.parametrize("name", ["chatbox.auth.saml.menu.enabled", "livechat.createmonitoreddialogs"])
def test_boolean_keys_take_true_or_false_only(client, demo_bot, personas, name):
    assert client.put(url(demo_bot, name, "TRUE"), **personas.alice.auth).json()["value"] == "true"
    assert bot_flag(demo_bot, name) is True
    assert client.put(url(demo_bot, name, "0"), **personas.alice.auth).json()["value"] == "false"
    assert bot_flag(demo_bot, name) is False
    refused = client.put(url(demo_bot, name, "maybe"), **personas.alice.auth)
    assert refused.status_code == 400
    assert refused.json()["code"] == "INVALID_FIELD"
    assert "not a boolean" in refused.json()["error"]
    assert stored(demo_bot) == {name: "false"}


def test_an_unset_boolean_reads_as_its_default(demo_bot):
    assert bot_flag(demo_bot, "livechat.createmonitoreddialogs") is False
    assert bot_value(demo_bot, "chatbox.auth.saml.menu.enabled") == "false"


def test_the_service_name_is_a_non_empty_string(client, demo_bot, personas):
    spaced = client.put(
        url(demo_bot, "bot.servicename"), {"value": "  Service   Client  "}, content_type=JSON, **personas.alice.auth
    )
    assert spaced.json()["value"] == "Service Client"
    blank = client.put(url(demo_bot, "bot.servicename"), {"value": "   "}, content_type=JSON, **personas.alice.auth)
    assert blank.status_code == 400
    assert stored(demo_bot) == {"bot.servicename": "Service Client"}


def test_the_no_group_must_be_a_matching_group_of_that_bot(client, demo_bot, personas):
    group = MatchingGroup.objects.filter(bot=demo_bot).first()
    accepted = client.put(url(demo_bot, "bot.no.group.uuid", str(group.uuid).upper()), **personas.alice.auth)
    assert accepted.status_code == 200
    assert accepted.json()["value"] == str(group.uuid)

    from bots.models import Bot

    other_bot = Bot.objects.create(name="Other", account=demo_bot.account)
    foreign = MatchingGroup.objects.create(bot=other_bot, name="Non", members=["non"])
    for bad in (str(foreign.uuid), "not-a-uuid", "00000000-0000-4000-8000-000000000000"):
        refused = client.put(url(demo_bot, "bot.no.group.uuid", bad), **personas.alice.auth)
        assert refused.status_code == 400, bad
        assert refused.json()["code"] == "INVALID_FIELD"
    assert stored(demo_bot) == {"bot.no.group.uuid": str(group.uuid)}


def test_unknown_keys_are_stored_as_given_strings(client, demo_bot, personas):
    body = client.put(
        url(demo_bot, "my.widget.size"), {"value": "12 px / 3"}, content_type=JSON, **personas.alice.auth
    ).json()
    assert (body["value"], body["type"], body["known"]) == ("12 px / 3", "string", False)


def test_bad_names_and_values_are_refused_and_change_nothing(client, demo_bot, personas):
    for bad_url in (url(demo_bot, "bad name!", "x"), url(demo_bot, "." + "a" * 10, "x"), url(demo_bot, "a" * 201, "x")):
        response = client.put(bad_url, **personas.alice.auth)
        assert response.status_code == 400, bad_url
        assert response.json()["code"] == "INVALID_FIELD"
    too_long = client.put(url(demo_bot, "k"), {"value": "x" * 4001}, content_type=JSON, **personas.alice.auth)
    assert too_long.status_code == 400
    no_value = client.put(url(demo_bot, "k"), **personas.alice.auth)
    assert no_value.status_code == 400
    assert no_value.json()["code"] == "MISSING_FIELD"
    assert stored(demo_bot) == {}
    assert not PreferenceChange.objects.exists()


def test_changes_are_recorded_with_who_and_when(client, demo_bot, personas):
    client.put(url(demo_bot, "bot.servicename", "One"), **personas.alice.auth)
    client.put(url(demo_bot, "bot.servicename", "One"), **personas.alice.auth)  # same value: no change
    client.put(url(demo_bot, "bot.servicename", "Two"), **personas.alice.auth)
    client.delete(url(demo_bot, "bot.servicename"), **personas.alice.auth)
    response = client.get(f"{ROOT}/history/bot/{demo_bot.uuid}", **personas.bob.auth)
    assert response.status_code == 200
    changes = response.json()["changes"]
    assert [(c["action"], c["oldValue"], c["newValue"], c["changedBy"]) for c in changes] == [
        ("deleted", "Two", None, personas.alice.login),
        ("changed", "One", "Two", personas.alice.login),
        ("added", None, "One", personas.alice.login),
    ]
    assert all(c["changedAt"] for c in changes)
    only = client.get(f"{ROOT}/history/bot/{demo_bot.uuid}?name=other", **personas.bob.auth).json()["changes"]
    assert only == []


class TestWhoMay:
    def test_an_outsider_gets_403_and_changes_nothing(self, client, demo_bot, personas):
        for method, target in (
            ("put", url(demo_bot, "bot.servicename", "Hijacked")),
            ("get", url(demo_bot)),
            ("get", url(demo_bot, "bot.servicename")),
            ("delete", url(demo_bot, "bot.servicename")),
            ("get", f"{ROOT}/history/bot/{demo_bot.uuid}"),
        ):
            response = getattr(client, method)(target, **personas.charlie.auth)
            assert response.status_code == 403, (method, target)
            assert response.json()["code"] == "FORBIDDEN"
        assert stored(demo_bot) == {}

    def test_an_editor_reads_but_does_not_change(self, client, demo_bot, personas):
        client.put(url(demo_bot, "bot.servicename", "Kept"), **personas.alice.auth)
        assert client.get(url(demo_bot, "bot.servicename"), **personas.bob.auth).status_code == 200
        assert client.put(url(demo_bot, "bot.servicename", "Changed"), **personas.bob.auth).status_code == 403
        assert client.delete(url(demo_bot, "bot.servicename"), **personas.bob.auth).status_code == 403
        assert stored(demo_bot) == {"bot.servicename": "Kept"}

    def test_an_operator_does_not_read_preferences(self, client, demo_bot):
        _, token = make_persona(demo_bot.account, "operator")
        assert client.get(url(demo_bot), HTTP_AUTHORIZATION=token).status_code == 403

    def test_without_credentials_401(self, client, demo_bot):
        response = client.put(url(demo_bot, "bot.servicename", "x"))
        assert response.status_code == 401
        assert response.json()["code"] == "MISSING_CREDENTIALS"
        assert stored(demo_bot) == {}

    def test_an_unknown_bot_is_404(self, client, personas):
        response = client.get(f"{ROOT}/bot/00000000-0000-4000-8000-000000000000", **personas.alice.auth)
        assert response.status_code == 404
        assert response.json()["code"] == "UNKNOWN_BOT"


def test_the_registry_lists_the_known_keys(client):
    keys = {key["name"]: key for key in client.get(f"{ROOT}/keys").json()}
    assert set(keys) == {
        "chatbox.auth.saml.menu.enabled",
        "chatbox.auth.saml.idp.metadata",
        "chatbox.auth.saml.origins",
        "livechat.createmonitoreddialogs",
        "bot.servicename",
        "bot.no.group.uuid",
        "dialogs.retention.days",
        "dialogs.mail.daily",
    }
    assert keys["livechat.createmonitoreddialogs"]["type"] == "boolean"
    assert (keys["dialogs.mail.daily"]["type"], keys["dialogs.mail.daily"]["default"]) == ("integer", "50")


def test_a_form_encoded_value_in_the_body_is_accepted(client, demo_bot, personas):
    response = client.put(
        url(demo_bot, "welcome.page"),
        "value=https%3A%2F%2Fshop.example%2Faide%3Fa%3D1",
        content_type="application/x-www-form-urlencoded",
        **personas.alice.auth,
    )
    assert response.status_code == 200
    assert stored(demo_bot) == {"welcome.page": "https://shop.example/aide?a=1"}
