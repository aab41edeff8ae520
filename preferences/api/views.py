"""Servlet groups Bot preferences and Account preferences (servlet-api.md §2, §4; product-behaviour.md §5.7).

PUT /preferences/bot/{botUUID}/{name}/{value} answers the stored pair; a value that cannot travel in a
path segment (a slash…) goes in the body field `value` of PUT /preferences/bot/{botUUID}/{name}.
Each call's schema names every status it may answer (bots/servlet/schema.py). One view per call serves
both scopes, a bot's preferences and the account's: the scope says whose preferences they are.
"""

from collections.abc import Callable
from dataclasses import dataclass

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers

from accounts.permissions import authenticate_request, check_allowed
from accounts.servlet import ProtectedView, acting_account
from bots.servlet.envelope import plain_json
from bots.servlet.schema import (
    ALWAYS,
    ARRAY,
    OBJECT,
    PROTECTED_RESOURCE_ERRORS,
    plain_schema,
    responses,
)
from bots.servlet.views import ServletView, get_bot

from .. import services
from ..registry import KNOWN_KEYS

JSON = {200: plain_schema(OBJECT)}
# Every preference call needs a token; the bot, the account (a superuser names it) or the preference may be unknown.
ERRORS = PROTECTED_RESOURCE_ERRORS
ANSWERS = responses(JSON, *ERRORS)
NAME_FILTER = OpenApiParameter("name", str, description="Only this preference's changes.")
VALUE = inline_serializer("PreferenceValue", {"value": serializers.CharField(max_length=4000)})


def bot_owner(request, action: str, bot_uuid: str) -> tuple[services.Owner, object]:
    user = authenticate_request(request)
    bot = get_bot(bot_uuid)
    check_allowed(user, action, bot=bot)
    return services.Owner(bot=bot), user


def account_owner(request, action: str) -> tuple[services.Owner, object]:
    user = authenticate_request(request)
    return services.Owner(account=acting_account(request, user, action)), user


@dataclass(frozen=True)
class Scope:
    """Whose preferences a view serves: `owner(request, action, **path)` finds them (and the user) from the
    request and the path's arguments (a bot's UUID, or none for the user's account)."""

    name: str
    tags: list[str]
    owner: Callable


BOT = Scope("Bot", ["Bot preferences"], bot_owner)
ACCOUNT = Scope("Account", ["Account preferences"], account_owner)


def owner_fields(owner: services.Owner) -> dict:
    return {"botUUID": str(owner.bot.uuid)} if owner.bot is not None else {"account": owner.account.name}


class PreferencesView(ProtectedView):
    """All preferences of the owner (GET)."""

    scope: Scope

    def get(self, request, **path):
        owner, _ = self.scope.owner(request, "preferences.read", **path)
        preferences = [services.preference_summary(p) for p in owner.preferences()]
        return plain_json({**owner_fields(owner), "preferences": preferences})


class PreferenceView(ProtectedView):
    """One preference: read (GET), set (PUT/POST, value in the path or the body), delete (DELETE)."""

    scope: Scope

    def get(self, request, name, **path):
        owner, _ = self.scope.owner(request, "preferences.read", **path)
        return self.answer_one(owner, services.get_preference(owner, name))

    def put(self, request, name, value=None, **path):
        owner, user = self.scope.owner(request, "preferences.edit", **path)
        if value is None:
            value = self.params(request).raw("value")
        preference, _ = services.set_preference(owner, name, value, user=user)
        return self.answer_one(owner, preference)

    post = put

    def delete(self, request, name, **path):
        owner, user = self.scope.owner(request, "preferences.edit", **path)
        old = services.delete_preference(owner, name, user=user)
        return plain_json({**owner_fields(owner), "name": name, "value": old, "deleted": True})

    def answer_one(self, owner, preference):
        return plain_json({**owner_fields(owner), **services.preference_summary(preference)})


# Set one preference, its value in the path. (Comments, not docstrings, here: drf-spectacular would show a
# docstring as the calls' description, and the API console's descriptions stay as they were.)
class PreferenceValueView(PreferenceView):
    http_method_names = ["put", "post", "options"]


# The owner's preference changes, newest first (at most 500), optionally one preference's.
class PreferenceHistoryView(ProtectedView):
    scope: Scope

    def get(self, request, **path):
        owner, _ = self.scope.owner(request, "preferences.read", **path)
        name = self.params(request).text("name") or None
        changes = [services.change_summary(c) for c in services.history(owner, name)[:500]]
        return plain_json({**owner_fields(owner), "changes": changes})


def scoped(view: type, scope: Scope, **schema) -> type:
    """The view serving one scope, with that scope's OpenAPI description (drf-spectacular describes a class)."""
    return extend_schema(tags=scope.tags, **schema)(type(scope.name + view.__name__, (view,), {"scope": scope}))


@extend_schema(
    tags=["Preferences"],
    summary="The known preference keys: type, scope, default, effect",
    request=None,
    responses=responses({200: plain_schema(ARRAY)}, *ALWAYS),
)
class PreferenceKeysView(ServletView):
    def get(self, request):
        return plain_json([key.describe() for key in KNOWN_KEYS.values()])


BotPreferencesView = scoped(PreferencesView, BOT, summary="All preferences of a bot", request=None, responses=ANSWERS)
BotPreferenceView = scoped(
    PreferenceView,
    BOT,
    summary="Read, set (value in the body) or delete one bot preference",
    request=VALUE,
    responses=ANSWERS,
)
BotPreferenceValueView = scoped(
    PreferenceValueView,
    BOT,
    summary="Set a bot preference: PUT /preferences/bot/{botUUID}/{name}/{value}",
    request=None,
    responses=ANSWERS,
)
BotPreferenceHistoryView = scoped(
    PreferenceHistoryView,
    BOT,
    summary="History of a bot's preference changes (who, when, from what to what)",
    request=None,
    parameters=[NAME_FILTER],
    responses=ANSWERS,
)
AccountPreferencesView = scoped(
    PreferencesView, ACCOUNT, summary="All preferences of the user's account", request=None, responses=ANSWERS
)
AccountPreferenceView = scoped(
    PreferenceView,
    ACCOUNT,
    summary="Read, set (value in the body) or delete one account preference",
    request=VALUE,
    responses=ANSWERS,
)
AccountPreferenceValueView = scoped(
    PreferenceValueView,
    ACCOUNT,
    summary="Set an account preference: PUT /preferences/account/{name}/{value}",
    request=None,
    responses=ANSWERS,
)
AccountPreferenceHistoryView = scoped(
    PreferenceHistoryView,
    ACCOUNT,
    summary="History of the account's preference changes",
    request=None,
    parameters=[NAME_FILTER],
    responses=ANSWERS,
)
