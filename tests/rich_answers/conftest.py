"""Fixtures borrowed from other test packages: the personas (accounts, tokens) and the real browser on
the demo page."""

from tests.accounts.personas import personas  # noqa: F401
from tests.e2e.conftest import browser, chat_page, demo_bot_live  # noqa: F401
