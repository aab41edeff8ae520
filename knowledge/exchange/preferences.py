"""Bot data transfer's preferences: read and written through the preferences app's services, so
they are checked and recorded in the preference history like any other change."""

from bots.servlet.errors import ServletError


def bot_preferences(bot) -> list[tuple[str, str]]:
    from preferences.models import BotPreference

    return list(BotPreference.objects.filter(bot=bot).order_by("name").values_list("name", "value"))


def set_preference(bot, name: str, value: str, *, user=None) -> str | None:
    """Store one imported preference; the reason it is refused, or None."""
    from preferences.services import Owner
    from preferences.services import set_preference as store

    try:
        store(Owner(bot=bot), name, value, user=user, via="import")
    except ServletError as error:
        return error.message
    return None
