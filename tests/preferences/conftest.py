"""Personas for the preference tests."""

from tests.accounts.personas import personas  # noqa: F401
