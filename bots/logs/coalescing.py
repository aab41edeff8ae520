"""Holds back the repeats of one kind of chat error for a second in this process, so that a flood of the same
error costs one database write per second per process instead of one per call (measured before: 0.7-1.2 ms
on SQLite, 4-6 ms on PostgreSQL per failing call, holding a database connection meanwhile)."""

import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime


@dataclass
class Held:
    """Errors of one kind not stored yet: how many, the last one's time, the first one's message."""

    times: int
    last_at: datetime
    message: str


class Coalescer:
    def __init__(self, seconds: float = 1.0, max_tracked: int = 10_000, clock=time.monotonic):
        self.seconds = seconds
        # Kinds remembered at once: bot UUIDs come from request paths, so made-up ones must not grow this.
        self.max_tracked = max_tracked
        self.clock = clock
        self._lock = threading.Lock()
        self._written: dict[Hashable, float] = {}  # kind → when this process last stored it
        self._held: dict[Hashable, Held] = {}

    def admit(self, key: Hashable, at: datetime, message: str) -> list[tuple[Hashable, Held]]:
        """What to store now: nothing when this kind was stored less than a second ago (the error is held),
        else this error with the repeats held since, and every other kind's repeats held a second or more."""
        now = self.clock()
        with self._lock:
            last = self._written.get(key)
            if last is not None and now - last < self.seconds:
                held = self._held.get(key)
                if held is None:
                    self._held[key] = Held(1, at, message)
                else:
                    held.times += 1
                    held.last_at = at
                return []
            current = Held(1, at, message)
            earlier = self._held.pop(key, None)
            if earlier is not None:
                current = Held(earlier.times + 1, at, earlier.message)
            due = [(key, current)]
            self._written[key] = now
            for other in [other for other in self._held if now - self._written.get(other, 0.0) >= self.seconds]:
                due.append((other, self._held.pop(other)))
                self._written[other] = now
            if len(self._written) > self.max_tracked:
                self._forget_before(now - self.seconds)
            return due

    def flush(self) -> list[tuple[Hashable, Held]]:
        """Every held error, to be stored now (a log is about to be read)."""
        now = self.clock()
        with self._lock:
            due = list(self._held.items())
            self._held.clear()
            for key, _ in due:
                self._written[key] = now
            return due

    def forget(self) -> None:
        with self._lock:
            self._written.clear()
            self._held.clear()

    def _forget_before(self, limit: float) -> None:
        self._written = {key: at for key, at in self._written.items() if at >= limit or key in self._held}
        if len(self._written) > self.max_tracked:
            # A burst of new kinds (made-up bots) within the second: keep only the kinds holding errors.
            self._written = {key: at for key, at in self._written.items() if key in self._held}
