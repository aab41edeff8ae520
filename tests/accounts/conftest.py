"""The personas fixture for this folder; other folders import it the same way in their conftest.py."""

from tests.accounts.personas import personas  # noqa: F401
