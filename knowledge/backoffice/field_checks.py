"""Checks a higher app adds to a knowledge item's fields in the back office, by field name: dialogs' slot checks
(dialogs/slots/checks.py), registered from dialogs/apps.py, so that knowledge's admin imports no dialogs code."""

from collections.abc import Callable

# field name -> check(formfield, bot_id): adds the field's validators and help for the bot.
FIELDS: dict[str, Callable] = {}


def register(fields: dict[str, Callable]) -> None:
    FIELDS.update(fields)
