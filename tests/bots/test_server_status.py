"""GET /serverstatus: anonymous callers (the chatbox) get status, date and version; a token with
status.details gets the full report of servlet-api.md §4, every figure measured."""

import json
import re
from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts.models import ApiToken
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db

STATUS = "/servlet/api/serverstatus"
APPLICATIONS = {"runtime", "dialog", "slogger", "website", "servlet", "sso", "router", "livechat", "analytic"}
METER_FIELDS = {"count", "meanRate", "oneMinuteRate", "fiveMinuteRate", "fifteenMinuteRate"}


def test_anonymous_callers_get_status_date_and_version_only(client, meters):
    for url in (STATUS, f"{STATUS}?details=true", "/api/serverstatus/", f"{STATUS}?pretty=true"):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.json()
        assert set(body) == {"status", "date", "version"}, url
        assert body["status"] == "Ok"
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", body["date"])
        assert re.fullmatch(r"\d+\.\d+\.\d+\+\w+", body["version"])


def test_an_administrator_gets_every_figure(client, personas, meters, chatbox):
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    response = client.get(f"{STATUS}?details=true", **personas.alice.auth)
    assert response.status_code == 200
    body = response.json()
    assert body["withDetails"] is True
    assert body["status"] == "Ok"
    assert body["hostName"]
    assert isinstance(body["durationMs"], int)
    assert set(body["applications"]) == APPLICATIONS
    for name, app in body["applications"].items():
        assert app["status"] == "Ok", (name, app)
        assert isinstance(app["durationMs"], int)
    assert body["volumes"] == {
        "connectedPeople": 0,
        "connectedOperators": 0,
        "currentDialogs": 1,
        "currentLivechatDialogs": 0,
    }
    assert body["applications"]["analytic"]["customs"]["interactionsLast24h"] == 1
    assert body["applications"]["dialog"]["customs"]["matcher"] == "Ok"
    chat = body["applications"]["servlet"]["requests"]["chatHttp"]
    assert set(chat) == {"successes", "errors", "ignored", "errorsByBot", "fiveMinuteErrorsRatio"}
    for meter in ("successes", "errors", "ignored"):
        assert set(chat[meter]) == METER_FIELDS
    assert chat["successes"]["count"] == 1


def test_connected_people_are_the_users_with_a_live_back_office_session(client, personas, meters):
    for persona in (personas.alice, personas.bob):
        Client().force_login(persona.user)
    Client().force_login(personas.bob.user)  # a second session of the same person
    body = client.get(f"{STATUS}?details=true", **personas.alice.auth).json()
    assert body["volumes"]["connectedPeople"] == 2
    assert body["applications"]["website"]["customs"]["sessions"] == 3


def test_pretty_indents(client, personas, meters):
    text = client.get(f"{STATUS}?details=true&pretty=true", **personas.alice.auth).content.decode()
    assert text.startswith('{\n  "withDetails": true,')
    assert json.loads(text)["withDetails"] is True


def test_an_authenticated_call_without_details_has_the_top_level_fields(client, personas, meters):
    body = client.get(STATUS, **personas.bob.auth).json()
    assert set(body) == {"withDetails", "status", "hostName", "date", "version", "durationMs"}
    assert body["withDetails"] is False


class TestWhoMaySeeDetails:
    def test_an_editor_may(self, client, personas, meters):
        assert client.get(f"{STATUS}?details=true", **personas.bob.auth).status_code == 200

    def test_an_administrator_of_another_account_may_the_status_is_server_wide(self, client, personas, meters):
        assert client.get(f"{STATUS}?details=true", **personas.charlie.auth).json()["withDetails"] is True

    def test_an_operator_may_not(self, client, personas, meters):
        _, token = make_persona(personas.account, "operator")
        response = client.get(f"{STATUS}?details=true", HTTP_AUTHORIZATION=token)
        assert response.status_code == 403
        assert response.json()["code"] == "FORBIDDEN"

    def test_a_user_outside_every_account_may_not(self, client, meters):
        loner = get_user_model().objects.create_user("loner", password="x" * 12)
        _, token = ApiToken.issue(loner)
        assert client.get(f"{STATUS}?details=true", HTTP_AUTHORIZATION=token).status_code == 403

    def test_an_expired_token_asking_details_gets_401_saying_so(self, client, personas, meters):
        with mock.patch("django.utils.timezone.now", return_value=timezone.now() + timedelta(hours=25)):
            response = client.get(f"{STATUS}?details=true", **personas.alice.auth)
        assert response.status_code == 401
        assert response.json()["code"] == "TOKEN_EXPIRED"

    def test_bad_credentials_without_details_still_get_the_summary(self, client, meters):
        # The chatbox in OIDC mode sends its own Bearer token on every call; serverstatus must stay 200.
        response = client.get(STATUS, HTTP_AUTHORIZATION="Bearer eyJhbGciOiJSUzI1NiJ9.oidc.token")
        assert response.status_code == 200
        assert set(response.json()) == {"status", "date", "version"}


def test_a_bad_boolean_is_a_clear_400(client):
    response = client.get(f"{STATUS}?details=maybe")
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_FIELD"


def test_an_unreachable_shared_cache_is_a_warning_naming_redis(client, personas, meters):
    # Every user of the cache falls back to its process's memory (FallbackCache): degraded, still serving.
    with mock.patch("bots.status.checks.cache.get", side_effect=ConnectionError("cache unreachable")):
        body = client.get(f"{STATUS}?details=true", **personas.alice.auth).json()
        # The anonymous answer reports the last overall status measured while the same services fail.
        assert client.get(STATUS).json()["status"] == "Warning"
    servlet = body["applications"]["servlet"]
    assert servlet["status"] == "Warning"
    assert "Redis" in servlet["customs"]["reason"]
    assert "cache unreachable" in servlet["customs"]["error"]
    assert body["status"] == "Warning"
    # The cache answers again: the next answer measures again instead of repeating the Warning.
    assert client.get(STATUS).json()["status"] == "Ok"


def test_saml_enabled_without_an_identity_provider_is_a_warning(client, personas, meters, demo_bot):
    client.put(
        f"/servlet/api/preferences/bot/{demo_bot.uuid}/chatbox.auth.saml.menu.enabled/true", **personas.alice.auth
    )
    body = client.get(f"{STATUS}?details=true", **personas.alice.auth).json()
    assert body["applications"]["sso"]["status"] == "Warning"
    assert body["applications"]["sso"]["customs"]["samlEnabledBots"] == 1
    assert body["applications"]["sso"]["customs"]["botsWithoutIdentityProvider"] == 1
    assert body["status"] == "Warning"
