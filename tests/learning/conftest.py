"""Learning's fixtures: the demo bot with misunderstood inputs seeded by talking to it, and back-office
users of its account whose role group gives their permissions."""

import pytest
from django.test import Client

from knowledge.demo.seed import BOT_UUID
from tests.accounts.personas import make_persona
from tests.conftest import Chatbox

# What visitors asked that the demo bot does not know (life insurance, bitcoin), and one question it knows.
LIFE_INSURANCE = [
    "assurance vie",
    "assurance vie",
    "Assurance vie ?",
    "je cherche une assurance vie pour mes enfants",
    "une assurance vie pour mes enfants",
]
BITCOIN = ["bitcoin", "bitcoin", "bitcoins"]
# The bot offers a rewording for this one.
REWORDED = "je veux acheter de la crypto"
UNDERSTOOD = "Quels sont vos horaires d'ouverture ?"

EDITOR = ["view_misunderstoodinput", "view_ignoredgroup", "add_ignoredgroup", "delete_ignoredgroup"]
EDITOR += ["add_formulation", "add_knowledgeitem", "change_knowledgeitem", "view_knowledgeitem"]
READER = ["view_misunderstoodinput", "view_ignoredgroup", "view_knowledgeitem"]


def talk_once(bot_uuid: str, text: str, client=None, **fields) -> dict:
    """One question in a dialog of its own (no too-many-misunderstood streak)."""
    return Chatbox(client or Client(), bot_uuid).talk(text, **fields)


def seed_inputs(client=None) -> None:
    for text in LIFE_INSURANCE + BITCOIN + [REWORDED, UNDERSTOOD]:
        talk_once(BOT_UUID, text, client)
    # An editor's own tests in qualification mode never count.
    talk_once(BOT_UUID, "assurance vie", client, qualificationMode="true")


def staff(bot, role: str, codenames: list[str]):
    """A back-office user of the bot's account with `role`: its role group (accounts/roles.py) gives the
    Django permissions; `codenames` are the learning page's ones the test counts on, checked here."""
    user, _ = make_persona(bot.account, role)
    user = type(user).objects.get(pk=user.pk)  # fresh: permissions are cached per instance
    assert user.is_staff and all(user.has_perm(f"knowledge.{codename}") for codename in codenames), role
    return user


@pytest.fixture
def lexical(settings):
    """The lexical matcher (no sentence encoder): the same grouping path on any machine, and fast."""
    settings.MATCHING_EMBEDDINGS = False


@pytest.fixture
def seeded(demo_bot, lexical):
    seed_inputs()
    return demo_bot
