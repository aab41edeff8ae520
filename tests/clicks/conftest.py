"""The real browser on the demo page, borrowed from the end-to-end tests; for export by e-mail, visitors
with their own client address and recipients, and the demo bot's day of mails started afresh."""

import uuid

import pytest
from django.test import Client

from dialogs.transcript import mail_limits
from tests.conftest import Chatbox
from tests.e2e.conftest import browser, chat_page, demo_bot_live  # noqa: F401

# Export by e-mail counts in the shared cache (Redis in CI, kept between runs): each test talks from its
# own client addresses and writes to its own recipients.


def fresh_address() -> str:
    part = uuid.uuid4().int
    return f"10.{part % 250}.{part // 250 % 250}.{part // 62500 % 250 + 1}"


def fresh_recipient(name: str = "visiteur") -> str:
    return f"{name}-{uuid.uuid4().hex[:10]}@example.org"


def visitor(bot_uuid, address: str | None = None, language: str = "fr") -> Chatbox:
    """A chatbox talking over REST from its own client address."""
    chatbox = Chatbox(Client(REMOTE_ADDR=address or fresh_address()), str(bot_uuid))
    chatbox.language = language
    return chatbox


@pytest.fixture
def mail_day(demo_bot):
    """The demo bot's mails of today start at none (its UUID is the same in every test)."""
    mail_limits.cache.delete(mail_limits.day_key(demo_bot))
    yield
    mail_limits.cache.delete(mail_limits.day_key(demo_bot))
