"""The bot preferences SAML reads (accounts/saml/preference_source.py), registered by this app at start-up, and
the SAML switch's per-process memory told when the switch changes."""

from accounts.saml import enabled

from .models import BotPreference
from .registry import TRUE


def value(name: str, **lookup) -> str | None:
    return BotPreference.objects.filter(name=name, **lookup).values_list("value", flat=True).first()


def flag(name: str, **lookup) -> bool:
    return (value(name, **lookup) or "").strip().lower() in TRUE


def changed(sender, instance, **kwargs) -> None:
    enabled.preference_changed(instance.name, instance.bot_id)
