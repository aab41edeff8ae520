"""What a preference's value stands for when it is the UUID of one of its owner's objects (a matching
group, a survey, a bot): that object's kind and name, shown beside the value, which stays as stored."""

import uuid

from django.apps import apps
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

# (model, the field leading to the bot, what the object is called): only the owner's bots' objects count, so
# another account's group never names a value.
NAMED_BY_UUID = [
    ("knowledge.MatchingGroup", "bot", _("Matching group")),
    ("dialogs.Survey", "bot", _("Survey")),
    ("bots.Bot", "pk", _("Bot")),
]


def owner_bots(preference):
    """The bots whose objects a preference may name: its bot's, or every bot of its account."""
    Bot = apps.get_model("bots", "Bot")
    bot_id = getattr(preference, "bot_id", None)
    if bot_id:
        return Bot.objects.filter(pk=bot_id)
    account_id = getattr(preference, "account_id", None)
    return Bot.objects.filter(account_id=account_id) if account_id else Bot.objects.none()


def stands_for(value: str | None, bots) -> str | None:
    """'Matching group: Non' when `value` is the UUID of an object of `bots`, else None."""
    try:
        key = uuid.UUID(str(value or "").strip())
    except ValueError:
        return None  # most values are not UUIDs: no query
    for label, path, kind in NAMED_BY_UUID:
        model = apps.get_model(label)
        found = model.objects.filter(uuid=key, **{f"{path}__in": bots}).first()
        if found is not None:
            return _("%(kind)s: %(name)s") % {"kind": kind, "name": found.name}
    return None


def value_with_meaning(value: str | None, bots):
    """The value as stored, and under it, when it names an object, that object (a list cell or a form's line)."""
    if value is None:
        return "—"
    meaning = stands_for(value, bots)
    if meaning is None:
        return value
    return format_html(
        '<span class="break-all">{}</span><br><span class="text-font-subtle-light dark:text-font-subtle-dark" '
        "data-meaning>{}</span>",
        value,
        meaning,
    )
