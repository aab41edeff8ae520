"""Intent names of knowledge items: readable (from the item's label), unique in the bot, and kept once given."""

import re
import unicodedata

from django.db import IntegrityError, transaction

from ..matching.groups import plain_text
from .models import ExternalIntent

MAX_LENGTH = 60
NOT_A_WORD = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """ASCII, lower case, words joined by "_": "Carte perdue ?" → "carte_perdue"."""
    folded = "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char)).lower()
    words = NOT_A_WORD.sub("_", folded).strip("_")
    return words[:MAX_LENGTH].rstrip("_")


def proposed_name(item, first_formulation: str = "") -> str:
    """The name an item would get: its label, else its first formulation, else its id. Never only digits
    (a YAML reader would take `12` for a number)."""
    name = slug(item.label) or slug(plain_text(first_formulation))
    if not name or name.isdigit():
        name = f"item_{name or item.pk}"
    return name


def intent_names(bot, items: list, first_formulations: dict[int, str], *, keep: bool) -> dict[int, str]:
    """Each item's intent name (item id → name): the one it was given, or a new one unique in the bot
    (`_2`, `_3`… on a clash). With `keep`, new names are stored, so the next export says the same."""
    given = dict(ExternalIntent.objects.filter(bot=bot).values_list("item_id", "name"))
    taken = set(given.values())
    names, new = {}, []
    for item in items:
        name = given.get(item.pk)
        if name is None:
            name = unique(proposed_name(item, first_formulations.get(item.pk, "")), taken)
            new.append(ExternalIntent(bot=bot, item=item, name=name))
        taken.add(name)
        names[item.pk] = name
    if keep and new:
        try:
            with transaction.atomic():
                ExternalIntent.objects.bulk_create(new)
        except IntegrityError:
            # Another export named some of these items at the same time: theirs are the names now.
            return intent_names(bot, items, first_formulations, keep=False)
    return names


def unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name}_{number}" in taken:
        number += 1
    return f"{name}_{number}"
