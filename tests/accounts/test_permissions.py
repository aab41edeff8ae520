"""authenticate_request and authorize: every header form, every 401 reason, the role matrix."""

from datetime import timedelta
from unittest import mock

import pytest
from django.test import RequestFactory
from django.utils import timezone

from accounts.models import ApiToken, Role
from accounts.permissions import ROLE_ACTIONS, authenticate_request, authorize
from bots.models import Bot
from bots.servlet.errors import Forbidden, Unauthorized

from .personas import basic, make_persona

pytestmark = pytest.mark.django_db


def request_with(authorization: str | None = None, address: str = "10.1.0.1"):
    extra = {"REMOTE_ADDR": address}
    if authorization is not None:
        extra["HTTP_AUTHORIZATION"] = authorization
    return RequestFactory().get("/servlet/api/anything", **extra)


def refusal(authorization, address="10.1.0.1") -> Unauthorized:
    with pytest.raises(Unauthorized) as caught:
        authenticate_request(request_with(authorization, address))
    assert caught.value.status == 401
    return caught.value


def test_a_token_is_accepted_bare_and_as_bearer(personas):
    alice = personas.alice
    assert authenticate_request(request_with(alice.token)) == alice.user
    assert authenticate_request(request_with(f"Bearer {alice.token}")) == alice.user
    assert authenticate_request(request_with(f"bearer {alice.token}")) == alice.user


def test_basic_login_and_password_are_accepted(personas):
    assert authenticate_request(request_with(basic(personas.bob.login))) == personas.bob.user


def test_each_refusal_says_why(personas):
    assert refusal(None).code == "MISSING_CREDENTIALS"
    assert refusal("   ").code == "MISSING_CREDENTIALS"
    assert refusal("dyt_not-a-token").code == "INVALID_CREDENTIALS"
    assert refusal("Bearer ").code == "MISSING_CREDENTIALS"
    assert refusal("Basic !!!not-base64").code == "INVALID_CREDENTIALS"
    assert refusal(basic(personas.bob.login, "wrong password"), address="10.1.0.2").code == "INVALID_CREDENTIALS"
    assert refusal("Digest username=x").code == "INVALID_CREDENTIALS"


def test_a_token_expires_after_24_hours(personas):
    token = ApiToken.find(personas.alice.token)
    assert token.expires_at - token.created_at == timedelta(hours=24)
    just_before = token.expires_at - timedelta(seconds=1)
    with mock.patch("django.utils.timezone.now", return_value=just_before):
        assert authenticate_request(request_with(personas.alice.token)) == personas.alice.user
    with mock.patch("django.utils.timezone.now", return_value=token.expires_at):
        error = refusal(personas.alice.token)
    assert error.code == "TOKEN_EXPIRED"
    assert "expired" in error.message


def test_a_revoked_token_is_refused(personas):
    ApiToken.find(personas.alice.token).revoke()
    assert refusal(personas.alice.token).code == "TOKEN_REVOKED"
    # A revoked token stays revoked after it would have expired: the reason given is still revocation.
    with mock.patch("django.utils.timezone.now", return_value=timezone.now() + timedelta(days=2)):
        assert refusal(personas.alice.token).code == "TOKEN_REVOKED"


def test_a_disabled_user_s_token_is_refused(personas):
    personas.bob.user.is_active = False
    personas.bob.user.save()
    assert refusal(personas.bob.token).code == "INVALID_CREDENTIALS"


def test_tokens_are_stored_hashed(personas):
    token = ApiToken.find(personas.alice.token)
    assert personas.alice.token not in (token.key_hash, token.key_start)
    assert not ApiToken.objects.filter(key_hash=personas.alice.token).exists()


def test_an_outsider_is_forbidden_on_another_account_s_bot(personas, demo_bot):
    with pytest.raises(Forbidden) as caught:
        authorize(request_with(personas.charlie.token), demo_bot, "knowledge.read")
    assert caught.value.status == 403
    assert caught.value.code == "FORBIDDEN"
    own_bot = Bot.objects.create(name="Charlie's bot", account=personas.other_account)
    assert authorize(request_with(personas.charlie.token), own_bot, "knowledge.edit") == personas.charlie.user


@pytest.mark.parametrize(
    ("role", "action", "allowed"),
    [
        (role, action, action in ROLE_ACTIONS[role])
        for role in Role.values
        for action in sorted(ROLE_ACTIONS[Role.ADMINISTRATOR])
    ],
)
def test_the_role_matrix(demo_bot, role, action, allowed):
    _, token = make_persona(demo_bot.account, role)
    if allowed:
        authorize(request_with(token), demo_bot, action)
    else:
        with pytest.raises(Forbidden):
            authorize(request_with(token), demo_bot, action)


def test_the_matrix_is_the_documented_one():
    assert ROLE_ACTIONS[Role.EDITOR] == {
        "knowledge.read",
        "knowledge.edit",
        "preferences.read",
        "account.read",
        "status.details",
    }
    assert ROLE_ACTIONS[Role.OPERATOR] == {"knowledge.read", "account.read", "livechat.operate"}
    assert ROLE_ACTIONS[Role.READER] == {"knowledge.read", "preferences.read", "account.read"}


def test_an_unknown_action_is_a_programming_error(personas, demo_bot):
    with pytest.raises(ValueError):
        authorize(request_with(personas.alice.token), demo_bot, "knowledge.burn")
