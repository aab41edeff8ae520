"""What the websockets say while the database is unavailable, as REST's 503 + Retry-After does: the
chatbox gets a notification frame (code ERRTemporarilyUnavailable, retryAfter) and the console an error
(code DATABASE_UNAVAILABLE, retryAfter), at once, without waiting on the database.

A frame that meets a database failure tells the database watch (bots/status/services.py), so that every
socket and request of the process is answered at once from then on. Before, frames never told it: each
waited its turn on the process's one sync thread for a connection the pool could not make, and four
sockets talking as PostgreSQL stopped were answered ERRInvalidRequest after 0.02, 0.03, 4.8 and 14.8 s
(now 0.01 s each, tests/faults/test_database_down_websockets.py).

The chatbox shows a frame's `text` as a bot message (client-contract.md §4.2 rule 12), so a talk's notice
carries one in the visitor's language; a notice for another frame (typing, reading, history…) has none,
and the chatbox shows nothing for it."""

import base64
import binascii
import json
import logging

from asgiref.sync import sync_to_async

from bots.status import report, services

log = logging.getLogger(__name__)

CHATBOX_CODE = "ERRTemporarilyUnavailable"
CONSOLE_CODE = "DATABASE_UNAVAILABLE"
ERROR = "The database is unavailable; try again in a few seconds."
# The console's close code when it cannot even be opened (RFC 6455's "Try Again Later").
TRY_AGAIN_LATER = 1013

WORDS = {
    "fr": "Le service est momentanément indisponible. Réessayez dans quelques secondes.",
    "en": "The service is temporarily unavailable. Please try again in a few seconds.",
}


class DatabaseUnavailable(Exception):
    """A frame or an action met the database down (raised from its database failure)."""


def database_down() -> bool:
    return services.database_down() is not None


def check(call):
    """`call` (synchronous, on the sync thread) with a database failure turned into DatabaseUnavailable
    after the watch is told; other errors pass through."""

    def checked(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except Exception as error:
            if services.is_database_failure(error):
                seen(error)
                raise DatabaseUnavailable from error
            raise

    return checked


def seen(error: BaseException) -> None:
    """A socket met `error`, a database failure: an outage starts the watch (logged by it once); any
    other (a deadlock, SQLite busy) fails this frame only, in one line."""
    if services.database.failed(error):
        report.forget()
    else:
        log.warning("A websocket frame met a database error, answered as unavailable: %s", error)


async def seen_async(error: BaseException) -> None:
    # The watch may try a fresh connection: never on the event loop, nor behind the busy sync thread.
    await sync_to_async(seen, thread_sensitive=False)(error)


def chatbox_values(frame: dict) -> dict:
    values = {"code": CHATBOX_CODE, "error": ERROR, "retryAfter": services.RETRY_AFTER_SECONDS}
    if frame.get("type") == "talk":
        values["text"] = WORDS.get(_language(frame), WORDS["en"])
    return values


def console_error() -> dict:
    return {"type": "error", "code": CONSOLE_CODE, "error": ERROR, "retryAfter": services.RETRY_AFTER_SECONDS}


def _language(frame: dict) -> str:
    parameters = frame.get("parameters")
    value = parameters.get("language") if isinstance(parameters, dict) else None
    if not isinstance(value, str):
        return ""
    try:
        return base64.b64decode(value, validate=True).decode("ascii").strip().lower()[:2]
    except (binascii.Error, ValueError):
        return ""


def console_door(application):
    """ASGI middleware before the console's session and user lookup (channels' AuthMiddleware reads
    the session from the database before the consumer runs): while the database is down, or when that
    lookup meets it down, the socket is accepted, told, and closed with 1013 (the console retries),
    instead of an exception logged and a handshake refused."""

    async def door(scope, receive, send):
        if not database_down():
            try:
                return await application(scope, receive, send)
            except Exception as error:
                if not services.is_database_failure(error):
                    raise
                await seen_async(error)
        await _refuse(receive, send)

    return door


async def _refuse(receive, send):
    message = await receive()
    if message["type"] != "websocket.connect":
        return  # the client left, or the consumer had already accepted: nothing more to say
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json.dumps(console_error())})
    await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
