"""Finding the bot a command names: by UUID, or by its exact name when that is unambiguous."""

import uuid

from django.core.management.base import CommandError

from bots.models import Bot


def find_bot(reference: str) -> Bot:
    try:
        bot = Bot.objects.filter(uuid=uuid.UUID(reference.strip())).first()
    except ValueError:
        bots = list(Bot.objects.filter(name=reference)[:2])
        if len(bots) > 1:
            raise CommandError(f"Several bots are named '{reference}'; give the UUID.") from None
        bot = bots[0] if bots else None
    if bot is None:
        raise CommandError(f"No bot has the UUID or the name '{reference}'.")
    return bot
