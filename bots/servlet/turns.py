"""The chat gate's turns (bots/servlet/gate.py): first come, first served, and as many at once as keep the
process's core busy, sized from what the process measures.

A talk is mostly CPU under one GIL, so a process gains nothing from running more than a couple at once, as
long as its talks do not wait. They do wait on the database: a durable commit is a disk flush, and a
database on another host adds a network round trip to every statement. While a talk waits the core idles,
and with a fixed number of turns the talks queued behind it wait too. So the turns widen while talks queue,
the process uses less than `target` of a core and the machine has idle cores; they narrow back towards
`base` when nobody waits, the process's core is busy, or the machine's cores are (then its talks wait for
a core, not for the database, and more at once would only interleave: 10 % fewer talks on the loopback,
bench/DISTANT_DATABASE.md).
"""

import asyncio
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path


def machine_idle() -> tuple[float, float]:
    """The machine's idle and total CPU time so far (/proc/stat, every core; ticks); (0, 0) where unknown."""
    try:
        with Path("/proc/stat").open() as stat:
            fields = [float(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    return fields[3] + (fields[4] if len(fields) > 4 else 0.0), sum(fields)  # idle + iowait


# The machine's idle share above which a process whose talks queue may run more at once.
SPARE = 0.10


class Width:
    """How many turns: measured every `period` seconds from the process's CPU time against the wall clock."""

    def __init__(
        self,
        base: int,
        ceiling: int,
        target: float = 0.85,
        period: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.process_time,
        idle: Callable[[], tuple[float, float]] | None = None,
    ):
        self.base = max(1, base)
        self.ceiling = max(self.base, ceiling)
        self.target = target
        self.period = period
        self.value = self.base
        self._clock, self._cpu = clock, cpu
        self._idle = idle or (lambda: machine_idle())  # looked up at each call: a test may stand in for it
        self._since, self._cpu_since, self._idle_since = clock(), cpu(), self._idle()
        self._queued = False  # did a call wait for its turn during this period

    def saw_queue(self) -> None:
        self._queued = True

    def update(self) -> int:
        """The width for the coming period (unchanged until a period has passed)."""
        now = self._clock()
        elapsed = now - self._since
        if elapsed < self.period:
            return self.value
        cpu, idle = self._cpu(), self._idle()
        used = (cpu - self._cpu_since) / elapsed  # cores this process used (about one at most, the GIL)
        ticks = idle[1] - self._idle_since[1]
        # Unknown (no /proc/stat): taken as idle, the process's own figure decides.
        spare = (idle[0] - self._idle_since[0]) / ticks if ticks > 0 else 1.0
        if self._queued and used < self.target and spare > SPARE:
            self.value = min(self.ceiling, self.value + 1)  # talks wait and cores idle: one more at once
        elif not self._queued or used > (1 + self.target) / 2 or spare < SPARE / 2:
            self.value = max(self.base, self.value - 1)  # nobody waits, or the cores are busy: towards base
        self._since, self._cpu_since, self._idle_since, self._queued = now, cpu, idle, False
        return self.value


class Turns:
    """Up to `width.value` holders at once; the others wait in arrival order (no thread held)."""

    def __init__(self, width: Width):
        self.width = width
        self.busy = 0
        self._waiting: deque[asyncio.Future] = deque()

    async def __aenter__(self):
        self.width.update()
        if self.busy < self.width.value and not self._waiting:
            self.busy += 1
            return self
        self.width.saw_queue()
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # granted as the caller went away: pass it on
                self._leave()
            else:
                self._waiting.remove(turn)
            raise
        return self

    async def __aexit__(self, *exc):
        self._leave()

    def _leave(self) -> None:
        self.busy -= 1
        self.width.update()
        while self._waiting and self.busy < self.width.value:
            turn = self._waiting.popleft()
            if not turn.done():
                self.busy += 1
                turn.set_result(None)

    @property
    def waiting(self) -> int:
        return len(self._waiting)
