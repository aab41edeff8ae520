"""Fixtures of the dialogs page's tests: a bot of its own with seeded dialogs, and people of each role."""

import pytest

from accounts.models import Account
from bots.models import Bot
from tests.accounts.personas import make_persona

from .seed import seed


@pytest.fixture
def bot(db):
    return Bot.objects.create(name="Banque Demo", account=Account.objects.create(name="Bank"))


@pytest.fixture
def seeded(bot):
    return seed(bot)


@pytest.fixture
def as_role(client, bot):
    """Log the test client in as a new person of the bot's account with that role."""

    def login(role):
        # The role's group gives the rights (accounts/roles.py): nothing is granted by hand.
        user, _ = make_persona(bot.account, role)
        client.force_login(user)
        return user

    return login
