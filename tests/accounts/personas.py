"""Named people for permission tests, importable by every area's tests.

    from tests.accounts.personas import make_persona, personas  # noqa: F401 (personas is a fixture)

    user, token = make_persona(bot.account, "editor")
    client.get(url, HTTP_AUTHORIZATION=token)

The `personas` fixture gives Alice (administrator of the demo bot's account A), Bob (editor of A) and
Charlie (administrator of another account B, so an outsider to the demo bot), each with a fresh token.
"""

import base64
import functools
import uuid
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from accounts.models import Account, ApiToken, Membership, Role

PASSWORD = "correct horse battery staple"


def make_persona(account, role: str = Role.ADMINISTRATOR, *, login: str | None = None, password: str = PASSWORD):
    """A back-office user of `account` (an Account or a name) with `role`, and a valid token.

    Returns (user, token): pass the token as the Authorization header as is, or as "Bearer <token>".
    """
    if isinstance(account, str):
        account, _ = Account.objects.get_or_create(name=account)
    login = login or f"{role}-{uuid.uuid4().hex[:10]}"
    user = get_user_model().objects.create_user(login, f"{login}@example.org")
    user.password = _password_hash(password)
    user.save(update_fields=["password"])
    Membership.objects.create(user=user, account=account, role=role)
    _, token = ApiToken.issue(user)
    return user, token


@functools.cache
def _password_hash(password: str) -> str:
    """Hashing is slow by design; personas share one hash per password so tests stay fast."""
    return make_password(password)


def basic(login: str, password: str = PASSWORD) -> str:
    """The Authorization value for HTTP Basic."""
    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode("ascii")


@dataclass
class Persona:
    user: object
    token: str

    @property
    def auth(self) -> dict:
        """Keyword arguments for Django's test client: client.get(url, **alice.auth)."""
        return {"HTTP_AUTHORIZATION": self.token}

    @property
    def login(self) -> str:
        return self.user.username


@dataclass
class Personas:
    account: Account
    other_account: Account
    alice: Persona  # administrator of the bot's account
    bob: Persona  # editor of the bot's account
    charlie: Persona  # administrator of another account: an outsider


def personas_for(bot) -> Personas:
    account = bot.account or Account.objects.get_or_create(name="Account A")[0]
    if bot.account_id is None:
        bot.account = account
        bot.save(update_fields=["account"])
    other, _ = Account.objects.get_or_create(name=f"Account B {uuid.uuid4().hex[:6]}")
    return Personas(
        account=account,
        other_account=other,
        alice=Persona(*make_persona(account, Role.ADMINISTRATOR, login=f"alice-{uuid.uuid4().hex[:6]}")),
        bob=Persona(*make_persona(account, Role.EDITOR, login=f"bob-{uuid.uuid4().hex[:6]}")),
        charlie=Persona(*make_persona(other, Role.ADMINISTRATOR, login=f"charlie-{uuid.uuid4().hex[:6]}")),
    )


@pytest.fixture
def personas(demo_bot) -> Personas:
    """Alice (administrator of the demo bot's account), Bob (its editor), Charlie (outsider)."""
    return personas_for(demo_bot)
