"""Is SAML on for a bot (the bot preference chatbox.auth.saml.menu.enabled)? Read on every chat call,
so it is kept per process: a change made in this process counts at once, in another within
PREFERENCE_SECONDS (a talk costs no extra query; tests/speed pins it)."""

import threading
import time
import uuid

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from preferences.models import BotPreference
from preferences.registry import TRUE

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
    value = BotPreference.objects.filter(bot__uuid=key, name=SAML_ENABLED).values_list("value", flat=True).first() or ""
    enabled = value.strip().lower() in TRUE
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


@receiver(post_save, sender=BotPreference)
@receiver(post_delete, sender=BotPreference)
def _preference_changed(sender, instance, **kwargs):
    if instance.name != SAML_ENABLED:
        return
    from bots.models import Bot

    bot_uuid = Bot.objects.filter(pk=instance.bot_id).values_list("uuid", flat=True).first()
    if bot_uuid is None:
        return
    forget(bot_uuid)
    # A chat call between this write and its commit may have read the old value again.
    transaction.on_commit(lambda: forget(bot_uuid))
