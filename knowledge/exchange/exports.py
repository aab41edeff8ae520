"""One knowledge base export at a time per user, across every worker process (the lock lives in
the shared cache: Redis in production, so two workers see the same lock)."""

import secrets
import time

from django.core.cache import cache

# A worker that dies mid-export frees the slot after this long; a running export keeps renewing it.
SLOT_SECONDS = 120
RENEW_EVERY_SECONDS = 20


class ExportSlot:
    def __init__(self, user_id):
        self.key = f"knowledge:export-slot:{user_id}"
        self.token = secrets.token_hex(8)
        self.renewed = 0.0

    def acquire(self) -> bool:
        self.renewed = time.monotonic()
        return cache.add(self.key, self.token, timeout=SLOT_SECONDS)

    def renew(self):
        now = time.monotonic()
        if now - self.renewed >= RENEW_EVERY_SECONDS:
            self.renewed = now
            cache.touch(self.key, timeout=SLOT_SECONDS)

    def release(self):
        # Only our own slot: after an expiry another export may hold it.
        if cache.get(self.key) == self.token:
            cache.delete(self.key)


class SlotStream:
    """The export's chunks, holding the slot while they flow and freeing it when the response is
    closed (finished, or the client went away)."""

    def __init__(self, chunks, slot: ExportSlot):
        self.chunks = iter(chunks)
        self.slot = slot

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        chunk = next(self.chunks)
        self.slot.renew()
        return chunk

    def close(self):
        try:
            close = getattr(self.chunks, "close", None)
            if close is not None:
                close()
        finally:
            self.slot.release()
