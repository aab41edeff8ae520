"""What the accounts app reports in the server status: the back office (its URL and its session
store, the `website` application) and the people connected to it (`connectedPeople`)."""

from django.conf import settings
from django.contrib.sessions.models import Session
from django.urls import resolve
from django.utils import timezone

from bots.status.checks import OK, Result

# Decoding every session is linear; past this many live sessions the count is a lower bound.
MAX_SESSIONS_DECODED = 20_000
DATABASE_SESSIONS = ("django.contrib.sessions.backends.db", "django.contrib.sessions.backends.cached_db")


def connected_people(now=None) -> int:
    """Distinct users with an unexpired back-office (Django admin) session."""
    if settings.SESSION_ENGINE not in DATABASE_SESSIONS:
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


def website() -> Result:
    """The back office: its URL and its session store."""
    resolve("/admin/")
    return Result(OK, {"sessions": live_sessions()})
