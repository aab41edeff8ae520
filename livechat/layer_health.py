"""Whether live chat's channel layer (Redis) answers, as this process last saw it. Consumers, pushes and
the server status report what they met; a talk asks before it offers the visitor an operator; a socket
whose layer failed waits here, without polling, until the layer answers again.

One flag per process. A failure sets it (one WARNING per outage), a successful call clears it (one INFO
line on recovery). While it is set, one task per event loop probes the layer with exponential backoff
and jitter (FIRST_RETRY_SECONDS doubling up to MAX_RETRY_SECONDS) and wakes the waiting sockets when it
answers. A talk that finds the flag stale (FRESH_SECONDS, DOWN_RECHECK_SECONDS) probes once itself with a
short timeout, so that it never waits a Redis connect timeout (5 s) nor trusts an old flag for long.
"""

import asyncio
import logging
import random
import threading
import time

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# What a talk trusts without asking the layer again: an answering layer for 5 s; one that failed for 1 s,
# so that a process without sockets (nothing else probes there) hands over again soon after Redis is back.
FRESH_SECONDS = 5.0
DOWN_RECHECK_SECONDS = 1.0
# A probe that takes longer counts as a failure: a Redis that does not answer is as good as down.
PROBE_TIMEOUT_SECONDS = 0.5
FIRST_RETRY_SECONDS = 0.5
# Short: each process notices by itself that Redis is back, and a handover waits for it meanwhile.
MAX_RETRY_SECONDS = 5.0
# A group nobody joins: sending to it is two Redis reads (channels_redis) and delivers nothing.
PROBE_GROUP = "livechat.probe"


def retry_delay(attempt: int) -> float:
    """The wait before the attempt-th retry (1, 2, …): doubling, capped, ±20 % so that processes and
    sockets that failed together do not all come back in the same instant."""
    base = min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** max(0, attempt - 1))
    return base * random.uniform(0.8, 1.2)


class LayerHealth:
    def __init__(self):
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._checked_at = float("-inf")  # the last failure or success, whoever saw it
        self._error = ""
        # The sockets' wait: an event and the recovery task, on the event loop they run in.
        self._loop = None
        self._back = None
        self._recovery = None
        self._probing = threading.Lock()

    def is_down(self) -> bool:
        return self._down_since is not None

    def details(self) -> dict:
        with self._lock:
            if self._down_since is None:
                return {}
            return {"downForSeconds": round(time.monotonic() - self._down_since, 1), "error": self._error}

    def failed(self, error: BaseException) -> bool:
        """A layer call failed; True when this failure starts an outage (logged once)."""
        with self._lock:
            self._checked_at = time.monotonic()
            self._error = f"{type(error).__name__}: {str(error)[:200]}"
            if self._down_since is not None:
                return False
            self._down_since = self._checked_at
        log.warning(
            "Live chat's channel layer is unreachable (%s): websockets stay open and bot conversations go on; "
            "live pushes wait and no visitor is handed to an operator until it answers (probing with backoff)",
            self._error,
        )
        return True

    def succeeded(self) -> None:
        """A layer call succeeded: the layer answers (the sockets waiting for it are woken)."""
        with self._lock:
            self._checked_at = time.monotonic()
            if self._down_since is None:
                return
            down_for = self._checked_at - self._down_since
            self._down_since, self._error = None, ""
            loop, back = self._loop, self._back
            self._back = None
        log.info("Live chat's channel layer answers again after %.1f s: sockets join their groups again", down_for)
        if back is not None and not loop.is_closed():
            loop.call_soon_threadsafe(back.set)

    def usable(self) -> bool:
        """For synchronous code (a talk): does the layer answer? The flag while it is fresh, else one
        probe of at most PROBE_TIMEOUT_SECONDS (one at a time: others take the flag as it is)."""
        if get_channel_layer() is None:
            return True  # nothing to reach: the REST poll is live chat's only transport
        down = self.is_down()
        trusted = DOWN_RECHECK_SECONDS if down else FRESH_SECONDS
        if time.monotonic() - self._checked_at < trusted or not self._probing.acquire(blocking=False):
            return not down
        try:
            return async_to_sync(probe)()
        finally:
            self._probing.release()

    async def wait_until_back(self) -> None:
        """Return once the layer answers again (at once if it does); one probing task per event loop."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._down_since is None:
                return
            if self._loop is not loop or self._back is None:
                self._loop, self._back = loop, asyncio.Event()
            back = self._back
            if self._recovery is None or self._recovery.done() or self._recovery.get_loop() is not loop:
                self._recovery = loop.create_task(self._recover())
        await back.wait()

    async def _recover(self) -> None:
        attempt = 0
        while self.is_down():
            attempt += 1
            await asyncio.sleep(retry_delay(attempt))
            await probe()


health = LayerHealth()


async def probe(timeout: float = PROBE_TIMEOUT_SECONDS) -> bool:
    """One round trip to the layer (a send to a group nobody joins); the flag follows the outcome."""
    layer = get_channel_layer()
    if layer is None:
        return True
    try:
        await asyncio.wait_for(layer.group_send(PROBE_GROUP, {"type": "livechat.probe"}), timeout)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # refused, reset, timed out: the layer does not answer
        health.failed(error)
        return False
    health.succeeded()
    return True
