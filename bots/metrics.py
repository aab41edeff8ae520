"""Meters of the chat calls over HTTP (servlet.requests.chatHttp in the server status), shared by every
worker process through Redis when REDIS_URL is set, else kept in this process.

A meter has a count, a mean rate and one-, five- and fifteen-minute exponentially weighted moving
average rates, computed as the usual metrics libraries do (Dropwizard Metrics): the events of each
5-second tick update every rate with alpha = 1 - exp(-5 s / window). Recording is one increment of a
5-second bucket in the process's memory; with Redis, each process sends what it counted in one round
trip at most once a second (RedisStore). The rates are computed when the status is read, from the
buckets of the last 90 minutes (older events weigh less than e^-6 in the 15-minute rate). Counts are
events per second.
"""

import atexit
import logging
import math
import os
import threading
import time
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.conf import settings

log = logging.getLogger(__name__)

TICK_SECONDS = 5
HISTORY_TICKS = 90 * 60 // TICK_SECONDS
METERS = ("successes", "errors", "ignored")
# errorsByBot keys come from request paths; past this many distinct bots the rest count under "other"
# so that requests for made-up UUIDs cannot grow the map without end.
MAX_BOTS = 1000
OTHER_BOTS = "other"
# The in-process meters start with the process (the metrics libraries start a meter when it is created).
PROCESS_STARTED = time.time()
WINDOWS_MINUTES = {"oneMinuteRate": 1, "fiveMinuteRate": 5, "fifteenMinuteRate": 15}


def alpha(minutes: int) -> float:
    return 1 - math.exp(-TICK_SECONDS / 60.0 / minutes)


@dataclass
class Snapshot:
    """What a store holds at one moment: enough to compute every figure of the report."""

    started: float
    counts: dict[str, int]
    buckets: dict[str, list[int]]  # per meter, events of each tick from first_tick on
    first_tick: int
    errors_by_bot: dict[str, int]


class LocalStore:
    """This process only: the embedded default (no Redis)."""

    kind = "in-process"

    def start(self, now: float) -> None:
        pass

    def __init__(self, now: float | None = None):
        self._lock = threading.Lock()
        self._started = PROCESS_STARTED if now is None else now
        self._counts: Counter = Counter()
        self._buckets: dict[str, dict[int, int]] = defaultdict(dict)
        self._errors_by_bot: Counter = Counter()

    def record(self, meter: str, tick: int, bot: str | None, now: float) -> None:
        with self._lock:
            self._counts[meter] += 1
            buckets = self._buckets[meter]
            buckets[tick] = buckets.get(tick, 0) + 1
            if len(buckets) > HISTORY_TICKS + 60:
                for old in [t for t in buckets if t < tick - HISTORY_TICKS]:
                    del buckets[old]
            if bot:
                if bot not in self._errors_by_bot and len(self._errors_by_bot) >= MAX_BOTS:
                    bot = OTHER_BOTS
                self._errors_by_bot[bot] += 1

    def snapshot(self, first_tick: int, last_tick: int, now: float) -> Snapshot:
        with self._lock:
            return Snapshot(
                started=self._started,
                counts={meter: self._counts[meter] for meter in METERS},
                buckets={
                    meter: [self._buckets[meter].get(t, 0) for t in range(first_tick, last_tick + 1)]
                    for meter in METERS
                },
                first_tick=first_tick,
                errors_by_bot=dict(self._errors_by_bot),
            )

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()
            self._buckets.clear()
            self._errors_by_bot.clear()


# What a process counted since its last flush, in one round trip. KEYS: the start time, errorsByBot, then
# (count, tick bucket) per pending (meter, tick); ARGV: ttl, start time, MAX_BOTS, OTHER_BOTS, the events
# of each pair, then (bot, errors) pairs. All keys share a {hash tag} so the script also runs on a cluster.
_FLUSH = """
redis.call('SET', KEYS[1], ARGV[2], 'NX')
local buckets = (#KEYS - 2) / 2
for b = 1, buckets do
  redis.call('INCRBY', KEYS[1 + 2 * b], ARGV[4 + b])
  redis.call('INCRBY', KEYS[2 + 2 * b], ARGV[4 + b])
  redis.call('EXPIRE', KEYS[2 + 2 * b], ARGV[1])
end
local i = 5 + buckets
while i < #ARGV do
  local field = ARGV[i]
  if redis.call('HEXISTS', KEYS[2], field) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then
    field = ARGV[4]
  end
  redis.call('HINCRBY', KEYS[2], field, ARGV[i + 1])
  i = i + 2
end
return 1
"""
FLUSH_SECONDS = 1.0


class RedisStore:
    """Shared by every process that uses the same Redis and namespace.

    A process adds its chat calls up in memory and sends them in one round trip at most every
    FLUSH_SECONDS (a thread of the process), before it reads the meters, and at exit: one Redis call
    per talk cost 5-6 % of a worker's CPU under load (bench/TALK.md). Other processes see a call within
    that second; the rates only move on whole 5-second ticks anyway. While Redis is unreachable the
    counts wait in memory (bounded by the ticks the report keeps and by MAX_BOTS) and go with the next
    flush that succeeds; a process killed outright loses at most its last second."""

    kind = "redis"

    def __init__(self, url: str, namespace: str = "chatHttp", background_flush: bool = True):
        import redis

        # background_flush=False leaves the flushes to the caller (a read, flush(), exit): tests that
        # must know when one happens.
        self.background_flush = background_flush
        self.client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self.prefix = f"metrics:{{{namespace}}}:"
        self._flush_script = self.client.register_script(_FLUSH)
        self._lock = threading.Lock()
        self._pending: Counter = Counter()  # (meter, tick) → events not yet in Redis
        self._pending_bots: Counter = Counter()  # bot → errors not yet in Redis
        self._first_pending = 0.0  # when the oldest of them was recorded

    def _key(self, *parts) -> str:
        return self.prefix + ":".join(str(part) for part in parts)

    def start(self, now: float) -> None:
        """The shared meters start when the first process starts (kept if already started)."""
        self.client.set(self._key("started"), repr(now), nx=True)

    def record(self, meter: str, tick: int, bot: str | None, now: float) -> None:
        with self._lock:
            if not self._pending:
                self._first_pending = now
                if self.background_flush:
                    _flusher.watch(self)
            self._pending[meter, tick] += 1
            if bot:
                if bot not in self._pending_bots and len(self._pending_bots) >= MAX_BOTS:
                    bot = OTHER_BOTS
                self._pending_bots[bot] += 1

    def pending(self) -> int:
        """Events counted here and not yet sent."""
        with self._lock:
            return sum(self._pending.values())

    def flush(self) -> None:
        """Send what this process counted (nothing to send: no round trip). On failure the counts stay
        here for the next flush, and the error is raised."""
        with self._lock:
            pending, bots, first = self._pending, self._pending_bots, self._first_pending
            if not pending:
                return
            self._pending, self._pending_bots = Counter(), Counter()
        keys = [self._key("started"), self._key("errorsByBot")]
        events = []
        for (meter, tick), count in pending.items():
            keys += [self._key("count", meter), self._key("tick", meter, tick)]
            events.append(count)
        ttl = (HISTORY_TICKS + 2) * TICK_SECONDS
        bot_args = [value for bot, count in bots.items() for value in (bot, count)]
        try:
            self._flush_script(keys=keys, args=[ttl, repr(first), MAX_BOTS, OTHER_BOTS, *events, *bot_args])
        except Exception:
            self._keep(pending, bots, first)
            raise

    def _keep(self, pending: Counter, bots: Counter, first: float) -> None:
        """Counts a failed flush could not send, back with the ones recorded meanwhile; ticks older than
        the report's history are dropped (they would weigh nothing), bots beyond MAX_BOTS are "other"."""
        with self._lock:
            if not self._pending and self.background_flush:
                _flusher.watch(self)
            self._first_pending = min(first, self._first_pending) if self._pending else first
            oldest = int(time.time() // TICK_SECONDS) - HISTORY_TICKS
            self._pending.update({key: count for key, count in pending.items() if key[1] >= oldest})
            for bot, count in bots.items():
                if bot not in self._pending_bots and len(self._pending_bots) >= MAX_BOTS:
                    bot = OTHER_BOTS
                self._pending_bots[bot] += count

    def snapshot(self, first_tick: int, last_tick: int, now: float) -> Snapshot:
        self.flush()  # this process's own calls are in what it reads
        ticks = range(first_tick, last_tick + 1)
        pipe = self.client.pipeline(transaction=False)
        pipe.set(self._key("started"), repr(now), nx=True)
        pipe.get(self._key("started"))
        pipe.mget([self._key("count", meter) for meter in METERS])
        for meter in METERS:
            pipe.mget([self._key("tick", meter, t) for t in ticks])
        pipe.hgetall(self._key("errorsByBot"))
        _, started, counts, *buckets, errors_by_bot = pipe.execute()
        return Snapshot(
            started=float(started),
            counts={meter: int(value or 0) for meter, value in zip(METERS, counts, strict=True)},
            buckets={meter: [int(v or 0) for v in values] for meter, values in zip(METERS, buckets, strict=True)},
            first_tick=first_tick,
            errors_by_bot={key.decode(): int(value) for key, value in errors_by_bot.items()},
        )

    def reset(self) -> None:
        with self._lock:
            self._pending.clear()
            self._pending_bots.clear()
        keys = list(self.client.scan_iter(match=self.prefix.replace("{", "\\{").replace("}", "\\}") + "*"))
        if keys:
            self.client.delete(*keys)


class _Flusher:
    """The process's thread that sends the Redis stores' counts every FLUSH_SECONDS, and at exit."""

    def __init__(self):
        self._lock = threading.Lock()
        self._stores: weakref.WeakSet = weakref.WeakSet()
        self._pid = None  # the process the thread runs in (a forked worker starts its own)
        self._last_failure_log = 0.0
        atexit.register(self.flush_all)

    def watch(self, store: RedisStore) -> None:
        if self._pid != os.getpid():
            with self._lock:
                if self._pid != os.getpid():
                    self._stores = weakref.WeakSet()
                    threading.Thread(target=self._run, name="chat meters flush", daemon=True).start()
                    self._pid = os.getpid()
        self._stores.add(store)

    def _run(self) -> None:
        while True:
            time.sleep(FLUSH_SECONDS)
            self.flush_all()

    def flush_all(self) -> None:
        for store in list(self._stores):
            try:
                store.flush()
            except Exception:  # Redis down: the counts wait for the next flush
                now = time.monotonic()
                if now - self._last_failure_log > 60:
                    self._last_failure_log = now
                    log.exception("Could not send the chat meters to Redis (logged at most once a minute)")


_flusher = _Flusher()


class ChatHttpMeters:
    """servlet.requests.chatHttp: successes, errors, ignored, errorsByBot, fiveMinuteErrorsRatio."""

    def __init__(self, store):
        self.store = store

    def mark(self, meter: str, bot: str | None = None, now: float | None = None) -> None:
        if meter not in METERS:
            raise ValueError(f"unknown meter {meter!r}")
        now = time.time() if now is None else now
        self.store.record(meter, int(now // TICK_SECONDS), bot if meter == "errors" else None, now)

    def report(self, now: float | None = None) -> dict:
        now = time.time() if now is None else now
        current_tick = int(now // TICK_SECONDS)
        # Like the metrics libraries, rates move only on whole ticks: the running tick is not counted yet.
        last_tick = current_tick - 1
        first_tick = current_tick - HISTORY_TICKS
        snap = self.store.snapshot(first_tick, last_tick, now)
        started_tick = int(snap.started // TICK_SECONDS)
        elapsed = max(now - snap.started, 1e-9)
        report = {}
        for meter in METERS:
            buckets = snap.buckets[meter][max(0, started_tick - first_tick) :]
            report[meter] = {
                "count": snap.counts[meter],
                "meanRate": snap.counts[meter] / elapsed,
                **{name: ewma(buckets, minutes) for name, minutes in WINDOWS_MINUTES.items()},
            }
        report["errorsByBot"] = dict(sorted(snap.errors_by_bot.items(), key=lambda pair: (-pair[1], pair[0])))
        errors, successes = report["errors"]["fiveMinuteRate"], report["successes"]["fiveMinuteRate"]
        report["fiveMinuteErrorsRatio"] = errors / (errors + successes) if errors + successes > 0 else 0.0
        return report


def ewma(ticks: list[int], minutes: int) -> float:
    """The exponentially weighted rate (events/s) after these ticks, oldest first; the first tick sets it."""
    a = alpha(minutes)
    rate = None
    for count in ticks:
        instant = count / TICK_SECONDS
        rate = instant if rate is None else rate + a * (instant - rate)
    return rate or 0.0


_meters: ChatHttpMeters | None = None
_meters_lock = threading.Lock()


def chat_http() -> ChatHttpMeters:
    """The meters of this deployment: Redis-backed when REDIS_URL is set."""
    global _meters
    if _meters is None:
        with _meters_lock:
            if _meters is None:
                if settings.REDIS_URL:
                    store = RedisStore(settings.REDIS_URL, f"chatHttp{settings.REDIS_KEY_PREFIX}")
                else:
                    store = LocalStore()
                _meters = ChatHttpMeters(store)
    return _meters


def use_meters(meters: ChatHttpMeters | None) -> ChatHttpMeters | None:
    """Swap the meters (tests use their own namespace); returns the previous ones."""
    global _meters
    previous, _meters = _meters, meters
    return previous
