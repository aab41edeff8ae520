"""Who supervises live chat, and which bots are monitored.

A supervisor is an administrator, or an operator given the supervisor right (accounts' livechat.monitor).
A bot is monitored when its preference `livechat.createmonitoreddialogs` is on: its dialogs, with the bot or
with a human, are then shown to the account's supervisors as they happen. The talk's hot path asks
`monitoring(bot_id)`, kept in the shared cache and cleared when the preference or the bot changes, so that
a talk costs no query for it."""

from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.models import Membership, Role
from accounts.permissions import can
from bots.models import Bot
from bots.servlet.errors import Forbidden, InvalidField
from bots.status.services import FallbackCache
from preferences.models import BotPreference
from preferences.registry import TRUE

from . import delivery
from .models import Operator

MONITORED = "livechat.createmonitoreddialogs"
MEMO_PREFIX = "livechat.monitoring."
# Changes clear it: the time is only a bound on what an outage of the shared cache may leave behind.
MEMO_SECONDS = 24 * 3600
# The shared cache (each process's memory while Redis is unreachable), so that every process sees a change.
memo = FallbackCache("the monitored bots")


def may_supervise(user) -> bool:
    return bool(user and user.is_active and can(user, "livechat.monitor"))


def is_supervisor(user_id: int) -> bool:
    """The rule of may_supervise on the user as the database has it now (a right given or taken back counts
    at once, whatever an object in memory remembers)."""
    user = get_user_model().objects.select_related("membership").filter(pk=user_id).first()
    return may_supervise(user)


def require(operator) -> None:
    """403 unless the operator is a supervisor (checked on every supervision action, from the database)."""
    if not is_supervisor(operator.user_id):
        raise Forbidden(
            "Supervising live chat is for administrators and operators given the supervisor right.",
            code="NOT_A_SUPERVISOR",
        )


def require_monitored(bot) -> None:
    if not is_flag_on(BotPreference.objects.filter(bot=bot, name=MONITORED).values_list("value", flat=True).first()):
        raise Forbidden(
            f"The bot '{bot.name}' is not monitored: turn its preference {MONITORED} on first.", code="NOT_MONITORED"
        )


def is_flag_on(value) -> bool:
    return (value or "").strip().lower() in TRUE


def monitored_bot_ids(account_id: int) -> set[int]:
    flags = BotPreference.objects.filter(bot__account_id=account_id, name=MONITORED).values_list("bot_id", "value")
    return {bot_id for bot_id, value in flags if is_flag_on(value)}


def monitoring(bot_id: int) -> tuple[bool, int | None, str]:
    """(monitored, the bot's account, the bot's name), kept in the shared cache until the preference or
    the bot changes (preference_changed): a talk asks the cache, not the database."""
    key = f"{MEMO_PREFIX}{bot_id}"
    known = memo.get(key)
    if known is not None:
        return tuple(known)
    row = Bot.objects.filter(pk=bot_id).values_list("account_id", "name").first()
    account_id, name = row if row else (None, "")
    value = BotPreference.objects.filter(bot_id=bot_id, name=MONITORED).values_list("value", flat=True).first()
    found = (is_flag_on(value) and account_id is not None, account_id, name)
    memo.set(key, list(found), MEMO_SECONDS)
    return found


def preference_changed(sender, instance, **kwargs):
    """A preference saved or deleted: the next talk of its bot reads the database again."""
    if instance.name == MONITORED:
        forget(instance.bot_id)


def bot_changed(sender, instance, **kwargs):
    """A bot renamed, moved or deleted: the same."""
    forget(instance.pk)


def forget(bot_id: int) -> None:
    key = f"{MEMO_PREFIX}{bot_id}"
    memo.delete(key)
    # Again once committed: a talk in between read the old value and may have kept it.
    transaction.on_commit(lambda: memo.delete(key))


def set_right(operator: Operator, value: bool) -> None:
    """Give an operator the supervisor right, or take it back (the caller checked livechat.supervise)."""
    membership = Membership.objects.get(user_id=operator.user_id)
    if value and membership.role not in (Role.OPERATOR, Role.ADMINISTRATOR):
        raise InvalidField("supervisor", "only operators are given the supervisor right")
    if membership.supervisor != value:
        membership.supervisor = value
        membership.save(update_fields=["supervisor"])  # rights_changed tells their open consoles


def with_right(operator: Operator, card: dict) -> dict:
    return {**card, "supervisor": is_supervisor(operator.user_id)}


def rights_changed(sender, instance, raw=False, **kwargs):
    """A membership saved (a role, the supervisor right): the user's open consoles follow it at once."""
    if raw:
        return
    operator_id = Operator.objects.filter(user_id=instance.user_id).values_list("pk", flat=True).first()
    if operator_id is not None:
        group = delivery.operator_group(operator_id)
        transaction.on_commit(lambda: delivery.send(group, {"type": "supervision.rights"}))


def watch_group(account_id: int) -> str:
    """The consoles of an account's supervisors: every line of its monitored bots' dialogs."""
    return f"livechat.watch.{account_id}"
