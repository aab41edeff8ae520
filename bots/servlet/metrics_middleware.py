"""Counts every chat call over HTTP for the server status, in one place, without touching the chat views.

A call is a chat call when its path is under /servlet/api/chat/ or /api/chat/ (or the old servlet's
/servlet/chatHttp, /chatHttp). It is:
- ignored: an OPTIONS or HEAD request (CORS preflights, monitoring probes): the server answers it
  without running any chat operation;
- a success: any other answer below 400;
- an error: an answer of 400 or more, attributed to the bot UUID in the path (errorsByBot), and
  stored for the Log Explicit group (bots/logs/recording.py: aggregated per bot, minute and kind).
Recording a success costs one in-process increment (with Redis, sent with the process's other counts once
a second: bots/metrics.py), never a database query; a metrics store that is down never fails the chat
call (the server status reports it instead).
"""

import logging
import re
import time

from bots import metrics
from bots.logs.recording import record_error

log = logging.getLogger(__name__)

CHAT_PATH = re.compile(r"^/(?:servlet/)?(?:api/chat/|chatHttp(?:/|$))")
UUID_SEGMENT = re.compile(r"/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:/|$)")
IGNORED_METHODS = {"OPTIONS", "HEAD"}
_last_failure_log = 0.0


def classify(method: str, status: int) -> str:
    if method.upper() in IGNORED_METHODS:
        return "ignored"
    return "errors" if status >= 400 else "successes"


def bot_in_path(path: str) -> str | None:
    """The first UUID of the path: the bot in every chat route (chat/talk/{bot}/{context}…)."""
    found = UUID_SEGMENT.search(path)
    return found.group(1).lower() if found else None


class ChatMetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        try:
            metrics.chat_http().store.start(time.time())
        except Exception:  # Redis down at start-up: the first recorded call starts the meters instead
            _log_failure()

    def __call__(self, request):
        response = self.get_response(request)
        if CHAT_PATH.match(request.path):
            meter = classify(request.method, response.status_code)
            bot = bot_in_path(request.path) if meter == "errors" else None
            try:
                metrics.chat_http().mark(meter, bot)
            except Exception:  # metrics must never break a chat call
                _log_failure()
            if bot:
                # Only error answers reach the database here: a successful talk costs nothing more.
                try:
                    record_error(request, response, bot)
                except Exception:  # nor may the error log
                    log.exception("Could not store a chat error in the Log Explicit table")
        return response


def _log_failure():
    global _last_failure_log
    now = time.monotonic()
    if now - _last_failure_log > 60:
        _last_failure_log = now
        log.exception("Could not record a chat call in the metrics store (logged at most once a minute)")
