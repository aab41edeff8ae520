"""Fixtures of the GDPR tests: the dialogs page's bot and seeded dialogs, people of each role, and a real SMTP
server the platform sends to (Django's memory backend only keeps a mail: the page must say so)."""

import pytest

from tests.dialogs_reading.conftest import as_role, bot, seeded  # noqa: F401 (fixtures)
from tests.mail_server import MailServer


@pytest.fixture
def mail_server(settings):
    """Mail goes out through Django's SMTP backend to a server of the test's own; its `messages` are what it got."""
    server = MailServer().start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", server.port, 5
    yield server
    server.stop()
