"""Fixtures of the GDPR tests: the dialogs page's bot and seeded dialogs, people of each role."""

from tests.dialogs_reading.conftest import as_role, bot, seeded  # noqa: F401 (fixtures)
