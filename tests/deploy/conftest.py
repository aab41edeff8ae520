"""The browser fixture of the e2e tests (Debian's chromium through Playwright) for the layout's chatbox test."""

from tests.e2e.conftest import browser  # noqa: F401
