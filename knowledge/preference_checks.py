"""The check of a "matching-group" preference (bot.no.group.uuid): the UUID of one of the bot's matching groups.
Registered with the preferences' registry at start-up (knowledge/apps.py), which imports no knowledge model."""

import uuid

from bots.servlet.errors import InvalidField

from .models import MatchingGroup


def matching_group_of_bot(value: str, bot) -> str:
    try:
        group_uuid = uuid.UUID(value.strip())
    except ValueError:
        raise InvalidField("value", f"'{value[:40]}' is not a UUID") from None
    if not MatchingGroup.objects.filter(bot=bot, uuid=group_uuid).exists():
        raise InvalidField("value", f"no matching group of this bot has the UUID {group_uuid}")
    return str(group_uuid)
