"""Is SAML on for a bot (the bot preference chatbox.auth.saml.menu.enabled)? Read on every chat call,
so it is kept per process: a change made in this process counts at once, in another within
PREFERENCE_SECONDS (a talk costs no extra query; tests/speed pins it)."""

import threading
import time
import uuid

from django.db import transaction

from . import preference_source

SAML_ENABLED = "chatbox.auth.saml.menu.enabled"
IDP_METADATA = "chatbox.auth.saml.idp.metadata"
ALLOWED_ORIGINS = "chatbox.auth.saml.origins"
PREFERENCE_SECONDS = 30.0

_known: dict[str, tuple[bool, float]] = {}
_lock = threading.Lock()


def saml_enabled(bot_uuid) -> bool:
    """The flag of the bot with this UUID (False for a malformed or unknown one)."""
    try:
        key = str(uuid.UUID(str(bot_uuid).strip()))
    except (ValueError, AttributeError):
        return False
    found = _known.get(key)
    now = time.monotonic()
    if found is not None and found[1] > now:
        return found[0]
    enabled = preference_source.flag(SAML_ENABLED, bot__uuid=key)
    with _lock:
        _known[key] = (enabled, now + PREFERENCE_SECONDS)
    return enabled


def forget(bot_uuid=None) -> None:
    """Drop what this process knows (of one bot, or of every bot)."""
    with _lock:
        if bot_uuid is None:
            _known.clear()
        else:
            _known.pop(str(bot_uuid), None)


def preference_changed(name: str, bot_id: int) -> None:
    """A bot preference was saved or deleted (preferences/saml_source.py tells): the switch is read again."""
    if name != SAML_ENABLED:
        return
    from bots.models import Bot

    bot_uuid = Bot.objects.filter(pk=bot_id).values_list("uuid", flat=True).first()
    if bot_uuid is None:
        return
    forget(bot_uuid)
    # A chat call between this write and its commit may have read the old value again.
    transaction.on_commit(lambda: forget(bot_uuid))
