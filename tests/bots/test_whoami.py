"""Who am I: the headers as {name, value} objects that also carry their own name (the chatbox shows the
`host` of the first header that has one), the remote address and the authenticated user, no secrets."""

import base64

import pytest

from tests.accounts.personas import PASSWORD, basic

pytestmark = pytest.mark.django_db


def host_as_the_chatbox_reads_it(body) -> str | None:
    """dydu.js: headers.find((it) => it && it.host)?.host"""
    return next((header["host"] for header in body["headers"] if header and header.get("host")), None)


def test_the_chatbox_finds_the_host(client):
    response = client.get("/servlet/api/whoami", HTTP_HOST="localhost:8000", HTTP_USER_AGENT="Chrome 156")
    assert response.status_code == 200
    body = response.json()
    assert "values" not in body  # else the chatbox would base64-decode it
    assert host_as_the_chatbox_reads_it(body) == "localhost:8000"
    assert {"name": "user-agent", "value": "Chrome 156", "user-agent": "Chrome 156"} in body["headers"]
    assert body["user"] is None
    assert client.get("/api/whoami/", HTTP_HOST="localhost").json()["headers"]


def test_the_remote_address_is_the_peer_s(client):
    body = client.get("/servlet/api/whoami", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.1").json()
    assert body["remoteAddress"] == "203.0.113.7"
    assert {"name": "x-forwarded-for", "value": "198.51.100.1", "x-forwarded-for": "198.51.100.1"} in body["headers"]


def test_a_token_user_is_named_and_the_token_is_not_echoed(client, personas):
    response = client.get("/servlet/api/whoami", HTTP_AUTHORIZATION=f"Bearer {personas.bob.token}")
    body = response.json()
    assert body["user"] == {"login": personas.bob.login, "role": "editor", "account": personas.account.name}
    assert body["authentication"]["method"] == "token"
    assert body["authentication"]["expiresAt"]
    assert personas.bob.token not in response.content.decode()
    shown = next(h["value"] for h in body["headers"] if h["name"] == "authorization")
    assert shown.startswith("Bearer dyt_") and "hidden" in shown


def test_basic_credentials_are_not_echoed(client, personas):
    header = basic(personas.alice.login)
    response = client.get("/servlet/api/whoami", HTTP_AUTHORIZATION=header, REMOTE_ADDR="10.77.0.1")
    text = response.content.decode()
    assert response.json()["user"]["login"] == personas.alice.login
    assert response.json()["authentication"]["method"] == "basic"
    assert PASSWORD not in text
    assert header.split()[1] not in text
    assert base64.b64encode(f"{personas.alice.login}:".encode()).decode()[:12] not in text


def test_cookies_show_their_names_only(client):
    client.cookies["sessionid"] = "s3cr3t-session"
    body = client.get("/servlet/api/whoami").json()
    cookie = next(h["value"] for h in body["headers"] if h["name"] == "cookie")
    assert "sessionid" in cookie and "s3cr3t-session" not in cookie


def test_bad_credentials_are_reported_not_refused(client):
    response = client.get("/servlet/api/whoami", HTTP_AUTHORIZATION="Bearer dyt_unknown_token_value_123456")
    assert response.status_code == 200
    assert response.json()["user"] is None
    assert response.json()["authentication"]["code"] == "INVALID_CREDENTIALS"
