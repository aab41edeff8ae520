"""Reading and changing bot and account preferences: checked against the registry, recorded in the
history with who and when. The API, the back office and other apps all go through here."""

import re

from django.db import transaction
from django.utils import timezone

from bots.servlet.errors import InvalidField, MissingField, NotFound

from .models import NAME_MAX_LENGTH, VALUE_MAX_LENGTH, AccountPreference, BotPreference, PreferenceChange
from .registry import TRUE, known_key

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class Owner:
    """A bot or an account, seen the same way by the preference operations."""

    def __init__(self, bot=None, account=None):
        assert (bot is None) != (account is None)
        self.bot, self.account = bot, account
        self.scope = PreferenceChange.Scope.BOT if bot is not None else PreferenceChange.Scope.ACCOUNT
        self.model = BotPreference if bot is not None else AccountPreference
        self.filter = {"bot": bot} if bot is not None else {"account": account}

    def preferences(self):
        return self.model.objects.filter(**self.filter).select_related("updated_by")


def clean_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise MissingField("name")
    if len(name) > NAME_MAX_LENGTH or not NAME_PATTERN.match(name):
        raise InvalidField("name", f"use at most {NAME_MAX_LENGTH} letters, digits and . _ - (e.g. bot.servicename)")
    return name


def clean_value(owner: Owner, name: str, value) -> str:
    if value is None:
        raise MissingField("value")
    value = str(value)
    if len(value) > VALUE_MAX_LENGTH:
        raise InvalidField("value", f"at most {VALUE_MAX_LENGTH} characters")
    key = known_key(name)
    if key is None:
        return value
    if owner.scope not in key.scopes:
        raise InvalidField("name", f"'{name}' is a {' or '.join(key.scopes)} preference, not an {owner.scope} one")
    return key.clean(value, owner.bot if owner.bot is not None else owner.account)


def set_preference(owner: Owner, name: str, value, *, user=None, via: str = "api"):
    """Store name=value (checked first; nothing changes on bad input). Returns (preference, changed)."""
    name = clean_name(name)
    value = clean_value(owner, name, value)
    with transaction.atomic():
        preference = owner.model.objects.select_for_update().filter(name=name, **owner.filter).first()
        old = preference.value if preference else None
        if preference is not None and old == value:
            return preference, False
        if preference is None:
            preference = owner.model(name=name, value=value, updated_by=user, **owner.filter)
        else:
            preference.value, preference.updated_by = value, user
        preference.updated_at = timezone.now()
        preference.save()
        _record(owner, name, old, value, user, via)
    return preference, True


def get_preference(owner: Owner, name: str):
    name = clean_name(name)
    preference = owner.preferences().filter(name=name).first()
    if preference is None:
        raise NotFound(f"The {owner.scope} has no preference '{name}'.", code="UNKNOWN_PREFERENCE", name=name)
    return preference


def delete_preference(owner: Owner, name: str, *, user=None, via: str = "api") -> str:
    """Delete the preference and record it; returns the value it had."""
    name = clean_name(name)
    with transaction.atomic():
        preference = owner.model.objects.select_for_update().filter(name=name, **owner.filter).first()
        if preference is None:
            raise NotFound(f"The {owner.scope} has no preference '{name}'.", code="UNKNOWN_PREFERENCE", name=name)
        old = preference.value
        preference.delete()
        _record(owner, name, old, None, user, via)
    return old


def history(owner: Owner, name: str | None = None):
    changes = PreferenceChange.objects.filter(scope=owner.scope, **owner.filter).select_related("changed_by")
    return changes.filter(name=name) if name else changes


def _record(owner: Owner, name, old, new, user, via):
    PreferenceChange.objects.create(
        scope=owner.scope,
        name=name,
        old_value=old,
        new_value=new,
        changed_by=user,
        changed_by_login=user.get_username() if user else "",
        via=via,
        **owner.filter,
    )


def preference_summary(preference) -> dict:
    key = known_key(preference.name)
    return {
        "name": preference.name,
        "value": preference.value,
        "type": key.kind if key else "string",
        "known": key is not None,
        "updatedAt": preference.updated_at.isoformat(),
        "updatedBy": preference.updated_by.get_username() if preference.updated_by else None,
    }


def change_summary(change: PreferenceChange) -> dict:
    return {
        "name": change.name,
        "oldValue": change.old_value,
        "newValue": change.new_value,
        "action": "deleted" if change.new_value is None else ("added" if change.old_value is None else "changed"),
        "changedAt": change.changed_at.isoformat(),
        "changedBy": change.changed_by_login or None,
        "via": change.via,
    }


# Typed reads for the apps the preferences affect (GDPR e-mail, SAML menu, live chat, slots).


def bot_value(bot, name: str, default: str | None = None) -> str | None:
    """The bot's stored value, else the registry's default, else `default`."""
    value = BotPreference.objects.filter(bot=bot, name=name).values_list("value", flat=True).first()
    if value is not None:
        return value
    key = known_key(name)
    return key.default if key and key.default is not None else default


def bot_flag(bot, name: str) -> bool:
    return (bot_value(bot, name, "false") or "").lower() in TRUE
