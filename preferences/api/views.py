"""Servlet groups Bot preferences and Account preferences (servlet-api.md §2, §4; product-behaviour.md §5.7).

PUT /preferences/bot/{botUUID}/{name}/{value} answers the stored pair; a value that cannot travel in a
path segment (a slash…) goes in the body field `value` of PUT /preferences/bot/{botUUID}/{name}.
Each call's schema names every status it may answer (bots/servlet/schema.py).
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers

from accounts.api.views import ProtectedView, acting_account
from accounts.permissions import authenticate_request, check_allowed
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

BOT = ["Bot preferences"]
ACCOUNT = ["Account preferences"]
JSON = {200: plain_schema(OBJECT)}
# Every preference call needs a token; the bot, the account (a superuser names it) or the preference may be unknown.
ERRORS = PROTECTED_RESOURCE_ERRORS
ANSWERS = responses(JSON, *ERRORS)
NAME_FILTER = OpenApiParameter("name", str, description="Only this preference's changes.")
VALUE = inline_serializer("PreferenceValue", {"value": serializers.CharField(max_length=4000)})


def bot_owner(request, bot_uuid: str, action: str) -> tuple[services.Owner, object]:
    user = authenticate_request(request)
    bot = get_bot(bot_uuid)
    check_allowed(user, action, bot=bot)
    return services.Owner(bot=bot), user


def account_owner(request, action: str) -> tuple[services.Owner, object]:
    user = authenticate_request(request)
    return services.Owner(account=acting_account(request, user, action)), user


def owner_fields(owner: services.Owner) -> dict:
    return {"botUUID": str(owner.bot.uuid)} if owner.bot is not None else {"account": owner.account.name}


class PreferencesView(ProtectedView):
    """All preferences of the owner (GET)."""

    def answer_all(self, owner):
        preferences = [services.preference_summary(p) for p in owner.preferences()]
        return plain_json({**owner_fields(owner), "preferences": preferences})


class PreferenceView(ProtectedView):
    """One preference: read (GET), set (PUT/POST, value in the path or the body), delete (DELETE)."""

    def answer_one(self, owner, preference):
        return plain_json({**owner_fields(owner), **services.preference_summary(preference)})

    def set_value(self, request, owner, user, name, value):
        if value is None:
            value = self.params(request).raw("value")
        preference, _ = services.set_preference(owner, name, value, user=user)
        return self.answer_one(owner, preference)

    def deleted(self, owner, name, old):
        return plain_json({**owner_fields(owner), "name": name, "value": old, "deleted": True})


@extend_schema(
    tags=["Preferences"],
    summary="The known preference keys: type, scope, default, effect",
    request=None,
    responses=responses({200: plain_schema(ARRAY)}, *ALWAYS),
)
class PreferenceKeysView(ServletView):
    def get(self, request):
        return plain_json([key.describe() for key in KNOWN_KEYS.values()])


@extend_schema(tags=BOT, summary="All preferences of a bot", request=None, responses=ANSWERS)
class BotPreferencesView(PreferencesView):
    def get(self, request, bot_uuid):
        owner, _ = bot_owner(request, bot_uuid, "preferences.read")
        return self.answer_all(owner)


@extend_schema(
    tags=BOT, summary="Read, set (value in the body) or delete one bot preference", request=VALUE, responses=ANSWERS
)
class BotPreferenceView(PreferenceView):
    def get(self, request, bot_uuid, name):
        owner, _ = bot_owner(request, bot_uuid, "preferences.read")
        return self.answer_one(owner, services.get_preference(owner, name))

    def put(self, request, bot_uuid, name, value=None):
        owner, user = bot_owner(request, bot_uuid, "preferences.edit")
        return self.set_value(request, owner, user, name, value)

    post = put

    def delete(self, request, bot_uuid, name):
        owner, user = bot_owner(request, bot_uuid, "preferences.edit")
        return self.deleted(owner, name, services.delete_preference(owner, name, user=user))


@extend_schema(
    tags=BOT,
    summary="Set a bot preference: PUT /preferences/bot/{botUUID}/{name}/{value}",
    request=None,
    responses=ANSWERS,
)
class BotPreferenceValueView(BotPreferenceView):
    http_method_names = ["put", "post", "options"]


@extend_schema(
    tags=BOT,
    summary="History of a bot's preference changes (who, when, from what to what)",
    request=None,
    parameters=[NAME_FILTER],
    responses=ANSWERS,
)
class BotPreferenceHistoryView(ProtectedView):
    def get(self, request, bot_uuid):
        owner, _ = bot_owner(request, bot_uuid, "preferences.read")
        name = self.params(request).text("name") or None
        changes = [services.change_summary(c) for c in services.history(owner, name)[:500]]
        return plain_json({**owner_fields(owner), "changes": changes})


@extend_schema(tags=ACCOUNT, summary="All preferences of the user's account", request=None, responses=ANSWERS)
class AccountPreferencesView(PreferencesView):
    def get(self, request):
        owner, _ = account_owner(request, "preferences.read")
        return self.answer_all(owner)


@extend_schema(
    tags=ACCOUNT,
    summary="Read, set (value in the body) or delete one account preference",
    request=VALUE,
    responses=ANSWERS,
)
class AccountPreferenceView(PreferenceView):
    def get(self, request, name):
        owner, _ = account_owner(request, "preferences.read")
        return self.answer_one(owner, services.get_preference(owner, name))

    def put(self, request, name, value=None):
        owner, user = account_owner(request, "preferences.edit")
        return self.set_value(request, owner, user, name, value)

    post = put

    def delete(self, request, name):
        owner, user = account_owner(request, "preferences.edit")
        return self.deleted(owner, name, services.delete_preference(owner, name, user=user))


@extend_schema(
    tags=ACCOUNT,
    summary="Set an account preference: PUT /preferences/account/{name}/{value}",
    request=None,
    responses=ANSWERS,
)
class AccountPreferenceValueView(AccountPreferenceView):
    http_method_names = ["put", "post", "options"]


@extend_schema(
    tags=ACCOUNT,
    summary="History of the account's preference changes",
    request=None,
    parameters=[NAME_FILTER],
    responses=ANSWERS,
)
class AccountPreferenceHistoryView(ProtectedView):
    def get(self, request):
        owner, _ = account_owner(request, "preferences.read")
        name = self.params(request).text("name") or None
        changes = [services.change_summary(c) for c in services.history(owner, name)[:500]]
        return plain_json({**owner_fields(owner), "changes": changes})
