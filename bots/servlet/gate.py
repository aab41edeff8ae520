"""ASGI middleware: a server process runs CHAT_CONCURRENCY chat calls at once, up to CHAT_CONCURRENCY_MAX
while they wait on the database (bots/servlet/turns.py); the others wait their turn, first come first
served, in the event loop (no thread, no database connection held).

Django under ASGI runs each request's sync code on a thread (config/http.py), so a burst of 50 talks was
50 threads taking turns on the GIL: every talk of the burst finished late, none early (a p99 of 137-143 ms
at 80 % of the maximum rate, bench/TALK_LOAD.md). Served a few at a time, in order, a talk waits for
the ones before it and then runs at full speed. Websockets and the other HTTP calls pass untouched:
an import or an export must never hold the chat back.
"""

import asyncio

from django.conf import settings

from .limits import CHAT_PATH, without_root
from .turns import Turns, Width

DEFAULT_CONCURRENCY = 2


def chat_concurrency() -> int:
    """At least one; 0 or less in the setting turns the gate off."""
    return int(getattr(settings, "CHAT_CONCURRENCY", DEFAULT_CONCURRENCY))


def chat_concurrency_ceiling(base: int) -> int:
    """The most chat calls at once while talks wait on the database; the base when not set higher."""
    return max(base, int(getattr(settings, "CHAT_CONCURRENCY_MAX", base)))


class ChatGate:
    def __init__(self, application):
        self.application = application
        # One set of turns per event loop (tests run several loops in one process; a server runs one).
        self._turns: dict[asyncio.AbstractEventLoop, Turns] = {}

    def _turns_of_this_loop(self, size: int) -> Turns:
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None or turns.width.base != size:
            self._turns = {known: held for known, held in self._turns.items() if not known.is_closed()}
            turns = self._turns[loop] = Turns(Width(size, chat_concurrency_ceiling(size)))
        return turns

    async def __call__(self, scope, receive, send):
        size = chat_concurrency()
        if (
            scope["type"] != "http"
            or size <= 0
            or not CHAT_PATH.match(without_root(scope.get("path", "/"), scope.get("root_path", "")))
        ):
            return await self.application(scope, receive, send)
        async with self._turns_of_this_loop(size):
            return await self.application(scope, receive, send)


def gated_chat(application):
    return ChatGate(application)
