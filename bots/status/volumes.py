"""The `volumes` of the server status, counted from stored state.

connectedPeople: distinct users with an unexpired back-office (Django admin) session.
currentDialogs: dialogs whose context id is still live (active in the last CONTEXT_IDLE_SECONDS).
connectedOperators, currentLivechatDialogs: asked of the live-chat app through `register`; until an
app registers them they are 0, which is the truth while no operator console exists.
"""

from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone

_providers: dict[str, Callable[[], int]] = {}

# Decoding every session is linear; past this many live sessions the count is a lower bound.
MAX_SESSIONS_DECODED = 20_000


def register(name: str, count: Callable[[], int]) -> None:
    """Let another app provide a volume (e.g. livechat: connectedOperators, currentLivechatDialogs)."""
    _providers[name] = count


def connected_people(now=None) -> int:
    if settings.SESSION_ENGINE not in (
        "django.contrib.sessions.backends.db",
        "django.contrib.sessions.backends.cached_db",
    ):
        return 0
    now = now or timezone.now()
    users = set()
    live = Session.objects.filter(expire_date__gt=now).only("session_data", "session_key")
    for session in live[:MAX_SESSIONS_DECODED].iterator():
        user_id = session.get_decoded().get("_auth_user_id")
        if user_id:
            users.add(user_id)
    return len(users)


def live_sessions(now=None) -> int:
    return Session.objects.filter(expire_date__gt=now or timezone.now()).count()


def current_dialogs(now=None) -> int:
    from dialogs.models import Dialog

    since = (now or timezone.now()) - timedelta(seconds=settings.CONTEXT_IDLE_SECONDS)
    return Dialog.objects.filter(archived_at__isnull=True, last_activity__gte=since).count()


def provided(name: str) -> int:
    count = _providers.get(name)
    return int(count()) if count else 0


def volumes() -> dict:
    return {
        "connectedPeople": connected_people(),
        "connectedOperators": provided("connectedOperators"),
        "currentDialogs": current_dialogs(),
        "currentLivechatDialogs": provided("currentLivechatDialogs"),
    }
