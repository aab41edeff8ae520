"""The real browser on the demo page, borrowed from the end-to-end tests."""

from tests.e2e.conftest import browser, chat_page, demo_bot_live  # noqa: F401
