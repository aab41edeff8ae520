"""One knowledge base export at a time per user, across every worker process (the lock lives in
the shared cache: Redis in production, so two workers see the same lock).

If the shared cache is unreachable, exports keep working: the slot is taken in this process's memory
instead (logged), so the rule holds per process until the shared cache answers again. An export keeps
the slot where it took it, so one that started during an outage frees its own slot after it."""

import contextlib
import secrets
import time

from django.core.cache import cache

from bots.status.services import FallbackCache, cache_failed, is_cache_outage, shared_cache_skipped

# A worker that dies mid-export frees the slot after this long; a running export keeps renewing it.
SLOT_SECONDS = 120
RENEW_EVERY_SECONDS = 20
_fallback = FallbackCache("the one-export-at-a-time slot")


class ExportSlot:
    def __init__(self, user_id):
        self.key = f"knowledge:export-slot:{user_id}"
        self.token = secrets.token_hex(8)
        self.renewed = 0.0
        self.store = cache

    def acquire(self) -> bool:
        self.renewed = time.monotonic()
        if not shared_cache_skipped():
            try:
                return self.store.add(self.key, self.token, timeout=SLOT_SECONDS)
            except Exception as error:
                if not is_cache_outage(error):
                    raise
                cache_failed(error, _fallback.user)
        self.store = _fallback.local
        return self.store.add(self.key, self.token, timeout=SLOT_SECONDS)

    def renew(self):
        now = time.monotonic()
        if now - self.renewed >= RENEW_EVERY_SECONDS:
            self.renewed = now
            # A cache that fails mid-export must not cut the download: the slot then expires by itself.
            with contextlib.suppress(Exception):
                self.store.touch(self.key, timeout=SLOT_SECONDS)

    def release(self):
        # Only our own slot: after an expiry another export may hold it.
        with contextlib.suppress(Exception):
            if self.store.get(self.key) == self.token:
                self.store.delete(self.key)


class SlotStream:
    """The export's chunks, holding the slot while they flow and freeing it when the response is
    closed (finished, or the client went away)."""

    def __init__(self, chunks, slot: ExportSlot):
        self.chunks = iter(chunks)
        self.slot = slot

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        try:
            chunk = next(self.chunks)
        except StopIteration:
            # Freed before the server sends the response's end: a client that starts its next export as soon
            # as this one is downloaded must not be told that this one is still running.
            self.close()
            raise
        self.slot.renew()
        return chunk

    def close(self):
        try:
            close = getattr(self.chunks, "close", None)
            if close is not None:
                close()
        finally:
            self.slot.release()
