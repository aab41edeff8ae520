"""Stores a chat call's error answer as a ServerError row (called by the chat meters' middleware, only for
answers of 400 or more, so a successful talk never runs any of this).

The table stays bounded whatever a client sends:
- aggregation: one row per bot, minute and kind (method and route, status, code); the same error again in
  that minute only increments the row's count (one UPDATE), and each process stores the repeats of a kind
  at most once a second (coalescing.py): a flood of one error costs one UPDATE per second per process;
- a cap: at most MAX_KINDS_PER_MINUTE rows per bot and minute; further kinds in that minute are counted
  in one overflow row;
- unknown bots (made-up UUIDs in the path) are not stored: nobody may read their log;
- a cleanup: rows older than SERVER_ERROR_RETENTION_DAYS (setting, 30 by default) are deleted by the
  process that writes a new row, at most once per PURGE_EVERY_SECONDS, and by `purge_old_server_errors()`.
So a bot holds at most (MAX_KINDS_PER_MINUTE + 1) rows per minute of the retention. A count may lag by the
repeats of the last second until the process stores its next error, or a log is read in that process.
"""

import json
import logging
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from bots.models import Bot

from .coalescing import Coalescer, Held
from .models import ServerError

log = logging.getLogger(__name__)

MAX_KINDS_PER_MINUTE = 20
OVERFLOW = {"operation": "*", "status": 0, "code": "MORE_KINDS"}
OVERFLOW_MESSAGE = f"More than {MAX_KINDS_PER_MINUTE} kinds of errors in this minute: the others are counted here."
RETENTION_DAYS = 30
PURGE_EVERY_SECONDS = 3600
# A database that is down cannot store its own outage; the 503 is counted by the meters only.
NOT_STORED_CODES = {"DATABASE_UNAVAILABLE"}
# Error answers are small JSON bodies; a larger one is not parsed for its code.
MAX_PARSED_BYTES = 16 * 1024

_coalescer = Coalescer()
_purge_lock = threading.Lock()
_last_purge: float | None = None  # when this process last purged (time.monotonic)


def record_error(request, response, bot_uuid: str) -> None:
    """Counts this error answer for the bot in the path (never raises: a log must not fail a chat call)."""
    code, message = _error_of(response)
    if code in NOT_STORED_CODES:
        return
    now = timezone.now()
    key = (bot_uuid, now.replace(second=0, microsecond=0), operation_of(request), response.status_code, code)
    _store(_coalescer.admit(key, now, message))


def store_held_errors() -> None:
    """Stores the repeats this process holds back, so that a log read here counts every error."""
    _store(_coalescer.flush())


def _store(due) -> None:
    for (bot_uuid, minute, operation, status, code), held in due:
        try:
            _count(bot_uuid, minute, {"operation": operation, "status": status, "code": code}, held)
        except DatabaseError:
            log.warning("Could not store a chat error of bot %s", bot_uuid, exc_info=True)


def operation_of(request) -> str:
    """The method and the route as written in the URL map ("POST chat/talk/{bot_uuid}"), never the path
    itself, so the kinds are the routes' and not whatever a client puts in a URL."""
    match = getattr(request, "resolver_match", None)
    route = _readable_route(match.route) if match is not None and match.route else "(no route)"
    return f"{request.method[:10]} {route}"[:120]


def _readable_route(route: str) -> str:
    # servlet_path's regex back to its template: ^servlet/api/^chat/talk/(?P<bot_uuid>[^/]+)/?$
    text = route.replace("^", "").replace("/?$", "").replace("$", "").replace("\\.", ".")
    for prefix in ("servlet/api/", "api/"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    while "(?P<" in text:
        start = text.index("(?P<")
        end = text.find(")", start)
        name = text[start + 4 : text.index(">", start)]
        text = text[:start] + "{" + name + "}" + text[end + 1 :]
    return text


def _error_of(response) -> tuple[str, str]:
    """The error body's code and text ({"error", "code"}, bots/servlet/errors.py), or empty strings."""
    if getattr(response, "streaming", False) or not response.get("Content-Type", "").startswith("application/json"):
        return "", ""
    content = response.content
    if len(content) > MAX_PARSED_BYTES:
        return "", ""
    try:
        body = json.loads(content)
    except ValueError:
        return "", ""
    if not isinstance(body, dict):
        return "", ""
    return str(body.get("code") or "")[:50], str(body.get("error") or "")[:200]


def _count(bot_uuid: str, minute, kind: dict, held: Held) -> None:
    if _increment(ServerError.objects.filter(bot__uuid=bot_uuid), minute, kind, held):
        return
    bot_id = Bot.objects.filter(uuid=bot_uuid).values_list("pk", flat=True).first()
    if bot_id is None:
        return
    rows = ServerError.objects.filter(bot_id=bot_id)
    message = held.message
    try:
        with transaction.atomic():
            if rows.filter(minute=minute).count() >= MAX_KINDS_PER_MINUTE:
                kind, message = OVERFLOW, OVERFLOW_MESSAGE
                if _increment(rows, minute, kind, held):
                    return
            ServerError.objects.create(
                bot_id=bot_id, minute=minute, last_at=held.last_at, message=message, count=held.times, **kind
            )
    except IntegrityError:
        # Another process created the same row meanwhile: count these errors in it.
        _increment(rows, minute, kind, held)
        return
    _purge_now_and_then()


def _increment(rows, minute, kind: dict, held: Held) -> bool:
    return rows.filter(minute=minute, **kind).update(count=F("count") + held.times, last_at=held.last_at) > 0


def _purge_now_and_then() -> None:
    global _last_purge
    if _purged_lately():
        return
    with _purge_lock:
        if _purged_lately():
            return
        _last_purge = time.monotonic()
    purge_old_server_errors()


def _purged_lately() -> bool:
    return _last_purge is not None and time.monotonic() - _last_purge < PURGE_EVERY_SECONDS


def retention_days() -> int:
    return int(getattr(settings, "SERVER_ERROR_RETENTION_DAYS", RETENTION_DAYS))


def purge_old_server_errors(now=None) -> int:
    """Deletes the rows older than the retention; returns how many went."""
    now = now or timezone.now()
    deleted, _ = ServerError.objects.filter(minute__lt=now - timedelta(days=retention_days())).delete()
    if deleted:
        log.info("Purged %d server error rows older than %d days", deleted, retention_days())
    return deleted
