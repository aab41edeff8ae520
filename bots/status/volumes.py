"""The `volumes` of the server status, counted from stored state by the apps that own it: each app
registers its counts in its AppConfig.ready (accounts: connectedPeople; dialogs: currentDialogs;
livechat: connectedOperators, currentLivechatDialogs). A volume nobody registered is 0, which is the
truth while its app is absent; one that cannot be counted now (its database is down) is null.
"""

import logging
from collections.abc import Callable

from . import services

log = logging.getLogger(__name__)

VOLUMES = ("connectedPeople", "connectedOperators", "currentDialogs", "currentLivechatDialogs")

_providers: dict[str, Callable[[], int]] = {}


def register(name: str, count: Callable[[], int]) -> None:
    """Let the app that owns a volume count it (e.g. livechat: connectedOperators)."""
    if name not in VOLUMES:
        raise ValueError(f"the server status has no volume {name!r}")
    _providers[name] = count


def provided(name: str) -> int | None:
    count = _providers.get(name)
    if count is None:
        return 0
    if services.database_down():
        return None
    try:
        return int(count())
    except Exception as error:
        services.database.failed(error)
        log.warning("The server status could not count %s", name, exc_info=True)
        return None


def volumes() -> dict:
    return {name: provided(name) for name in VOLUMES}
