"""The Authentication servlet and the /servlet/authentication.html page: tokens valid 24 hours,
revocation, and the failed-login lockout."""

import uuid
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from accounts import lockout
from accounts.models import ApiToken

from .personas import PASSWORD, basic

pytestmark = pytest.mark.django_db

AUTH = "/servlet/api/authentication"
STATUS_DETAILS = "/servlet/api/serverstatus?details=true"


def address() -> str:
    """A fresh client address per test: lockout counters are shared through the cache (Redis in CI)."""
    part = uuid.uuid4().int
    return f"10.{part % 250}.{part // 250 % 250}.{part // 62500 % 250 + 1}"


def get_token(client, login, password=PASSWORD, **extra):
    return client.post(AUTH, {"login": login, "password": password}, REMOTE_ADDR=extra.pop("ip", address()), **extra)


def test_a_login_and_password_give_a_token_valid_24_hours(client, personas):
    before = timezone.now()
    response = get_token(client, personas.alice.login)
    assert response.status_code == 200
    body = response.json()
    assert body["token"].startswith("dyt_")
    assert body["tokenType"] == "Bearer"
    assert body["expiresIn"] == 24 * 3600
    assert body["login"] == personas.alice.login
    assert body["role"] == "administrator"
    assert body["account"] == personas.account.name
    expires = timezone.datetime.fromisoformat(body["expiresAt"])
    assert before + timedelta(hours=24) <= expires <= timezone.now() + timedelta(hours=24)
    assert response["Cache-Control"] == "no-store"
    # The token works, bare and as Bearer, on a protected call.
    assert client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=body["token"]).status_code == 200
    assert client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=f"Bearer {body['token']}").status_code == 200


def test_the_token_is_stored_hashed(client, personas):
    token = get_token(client, personas.bob.login).json()["token"]
    stored = ApiToken.objects.get(user=personas.bob.user, key_start=token[:10])
    assert token not in (stored.key_hash, stored.key_start)


def test_json_bodies_and_basic_headers_are_accepted_too(client, personas):
    credentials = {"login": personas.bob.login, "password": PASSWORD}
    as_json = client.post(AUTH, credentials, content_type="application/json", REMOTE_ADDR=address())
    assert as_json.status_code == 200
    as_basic = client.post(AUTH, HTTP_AUTHORIZATION=basic(personas.bob.login), REMOTE_ADDR=address())
    assert as_basic.status_code == 200
    assert as_basic.json()["token"] != as_json.json()["token"]


def test_wrong_or_missing_credentials_get_401_saying_which(client, personas):
    wrong = get_token(client, personas.alice.login, "not the password")
    assert wrong.status_code == 401
    assert wrong.json()["code"] == "INVALID_CREDENTIALS"
    unknown = get_token(client, "nobody-" + uuid.uuid4().hex[:6])
    assert unknown.json()["code"] == "INVALID_CREDENTIALS"
    missing = client.post(AUTH, {}, REMOTE_ADDR=address())
    assert missing.status_code == 400
    assert missing.json() == {"error": "The field 'login' is required.", "code": "MISSING_FIELD", "field": "login"}
    assert ApiToken.objects.filter(user=personas.alice.user).count() == 1  # only the persona's own


def test_an_expired_token_gets_401_token_expired(client, personas):
    issued = get_token(client, personas.alice.login).json()
    expires = timezone.datetime.fromisoformat(issued["expiresAt"])
    with mock.patch("django.utils.timezone.now", return_value=expires - timedelta(seconds=1)):
        assert client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=issued["token"]).status_code == 200
    with mock.patch("django.utils.timezone.now", return_value=expires + timedelta(seconds=1)):
        response = client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=issued["token"])
    assert response.status_code == 401
    assert response.json()["code"] == "TOKEN_EXPIRED"


def test_a_revoked_token_gets_401_token_revoked(client, personas):
    token = get_token(client, personas.alice.login).json()["token"]
    revoked = client.delete(AUTH, HTTP_AUTHORIZATION=token)
    assert revoked.status_code == 200
    assert revoked.json()["revoked"] is True
    response = client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=token)
    assert response.status_code == 401
    assert response.json()["code"] == "TOKEN_REVOKED"
    # Other tokens of the same user still work.
    assert client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=personas.alice.token).status_code == 200


def test_a_user_revokes_one_of_their_tokens_by_value_but_not_someone_else_s(client, personas):
    spare = get_token(client, personas.alice.login).json()["token"]
    refused = client.post(f"{AUTH}/revoke", {"token": spare}, HTTP_AUTHORIZATION=personas.bob.token)
    assert refused.status_code == 404
    assert ApiToken.find(spare).revoked_at is None
    done = client.post(f"{AUTH}/revoke", {"token": spare}, HTTP_AUTHORIZATION=personas.alice.token)
    assert done.status_code == 200
    assert ApiToken.find(spare).revoked_at is not None


def test_revoking_needs_credentials(client):
    response = client.delete(AUTH)
    assert response.status_code == 401
    assert response.json()["code"] == "MISSING_CREDENTIALS"


class TestLockout:
    """Repeated failures are slowed (429 LOGIN_SLOWED with Retry-After), then locked (429 LOGIN_LOCKED)."""

    def test_failures_for_one_login_are_slowed_then_locked(self, client, personas, caplog):
        ip = address()
        clock = [1_000_000.0]
        with mock.patch.object(lockout, "now", side_effect=lambda: clock[0]):
            for _ in range(lockout.PER_LOGIN.slow_after):
                assert get_token(client, personas.bob.login, "wrong", ip=ip).status_code == 401
            # The next attempt right away is refused before the password is even checked, right or wrong.
            slowed = get_token(client, personas.bob.login, PASSWORD, ip=ip)
            assert slowed.status_code == 429
            assert slowed.json()["code"] == "LOGIN_SLOWED"
            assert slowed["Retry-After"] == "1"
            # Waiting the delay lets the person try again; the delay doubles with each failure, up to 30 s.
            retry_after = [slowed["Retry-After"]]
            while True:
                clock[0] += lockout.MAX_DELAY_SECONDS + 1
                assert get_token(client, personas.bob.login, "wrong", ip=ip).status_code == 401
                at_once = get_token(client, personas.bob.login, "wrong", ip=ip)
                assert at_once.status_code == 429
                if at_once.json()["code"] == "LOGIN_LOCKED":
                    break
                retry_after.append(at_once["Retry-After"])
            assert retry_after == ["1", "2", "4", "8", "16", "30", "30"]
            assert int(at_once["Retry-After"]) == lockout.LOCK_SECONDS
            # Locked: even the right password is refused, from any address, until the lock ends.
            clock[0] += 60
            assert get_token(client, personas.bob.login, PASSWORD, ip=address()).status_code == 429
            clock[0] += lockout.LOCK_SECONDS
            assert get_token(client, personas.bob.login, PASSWORD, ip=ip).status_code == 200
        assert any("Login locked" in record.message for record in caplog.records)

    def test_tokens_still_work_while_the_password_is_locked(self, client, personas):
        with mock.patch.object(lockout, "now", return_value=2_000_000.0):
            for _ in range(lockout.PER_LOGIN.lock_after):
                lockout.record_failure(address(), personas.alice.login)
            assert get_token(client, personas.alice.login).json()["code"] == "LOGIN_LOCKED"
            assert client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=personas.alice.token).status_code == 200

    def test_one_address_trying_many_logins_is_locked(self, client, personas):
        ip = address()
        with mock.patch.object(lockout, "now", return_value=3_000_000.0):
            for _ in range(lockout.PER_ADDRESS.lock_after):
                lockout.record_failure(ip, "guess-" + uuid.uuid4().hex[:8])
            refused = get_token(client, personas.alice.login, ip=ip)
            assert refused.status_code == 429
            assert refused.json()["code"] == "LOGIN_LOCKED"
            # Another address is not concerned.
            assert get_token(client, personas.alice.login, ip=address()).status_code == 200

    def test_basic_credentials_go_through_the_same_lockout(self, client, personas):
        ip = address()
        with mock.patch.object(lockout, "now", return_value=4_000_000.0):
            for _ in range(lockout.PER_LOGIN.slow_after):
                wrong = client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=basic(personas.bob.login, "x"), REMOTE_ADDR=ip)
                assert wrong.status_code == 401
            slowed = client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=basic(personas.bob.login), REMOTE_ADDR=ip)
        assert slowed.status_code == 429
        assert slowed.json()["code"] == "LOGIN_SLOWED"

    def test_a_right_password_clears_the_login_s_failures(self, client, personas):
        ip = address()
        with mock.patch.object(lockout, "now", return_value=5_000_000.0):
            for _ in range(lockout.PER_LOGIN.slow_after - 1):
                assert get_token(client, personas.bob.login, "wrong", ip=ip).status_code == 401
            assert get_token(client, personas.bob.login, ip=ip).status_code == 200
            for _ in range(lockout.PER_LOGIN.slow_after - 1):
                assert get_token(client, personas.bob.login, "wrong", ip=ip).status_code == 401
            assert get_token(client, personas.bob.login, ip=ip).status_code == 200


class TestAuthenticationPage:
    PAGE = "/servlet/authentication.html"

    def test_the_page_asks_for_login_and_password(self, client):
        response = client.get(self.PAGE)
        assert response.status_code == 200
        html = response.content.decode()
        assert 'name="login"' in html and 'name="password"' in html and "Generate" in html
        assert client.get("/authentication.html").status_code == 200

    def test_it_shows_a_working_token_its_expiry_and_the_basic_value(self, client, personas):
        response = client.post(self.PAGE, {"login": personas.alice.login, "password": PASSWORD}, REMOTE_ADDR=address())
        assert response.status_code == 200
        token = response.context["token"]
        html = response.content.decode()
        assert token in html
        assert basic(personas.alice.login) in html
        assert response.context["expires_at"].strftime("%Y-%m-%d %H:%M:%S") in html
        assert ApiToken.find(token).user == personas.alice.user
        assert client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=token).status_code == 200

    def test_a_wrong_password_shows_an_error_and_no_token(self, client, personas):
        response = client.post(self.PAGE, {"login": personas.alice.login, "password": "nope"}, REMOTE_ADDR=address())
        assert response.status_code == 401
        assert "The login or the password is wrong." in response.content.decode()
        assert "token" not in response.context or not response.context.get("token")
        assert ApiToken.objects.filter(user=personas.alice.user).count() == 1

    def test_the_page_is_protected_against_cross_site_posts(self, personas):
        from django.test import Client

        strict = Client(enforce_csrf_checks=True)
        response = strict.post(self.PAGE, {"login": personas.alice.login, "password": PASSWORD})
        assert response.status_code == 403
