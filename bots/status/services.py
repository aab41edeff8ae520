"""The shared services as this process sees them: the database and the shared cache (Redis).

Database. While PostgreSQL is down, psycopg's pool makes every request wait its whole timeout (10 s)
for a connection, and after the database returns the pool's reconnection attempts keep backing off
(1, 2, 4… s, doubling), so the service stayed down long after the database came back. A connection
failure met anywhere (a request, a status check) therefore marks the database down: requests are
answered 503 at once without touching it (bots/servlet/middleware.py), and one thread of this process
tries a fresh connection every PROBE_SECONDS. When one succeeds, the pool is replaced by a new one
(fresh connections, no backoff) and requests are served again. Errors that are not about reaching
the database (a deadlock, SQLite's "database is locked") only fail their own request, and so does a
pool timeout while a fresh connection answers (a saturated server, not a database that is down).
A process that starts while the database is down learns it from its first request, after the
pool's timeout.

Cache. When the shared cache is unreachable, what keeps counters or locks in it (the login lockout,
the one-export-at-a-time slot) goes on with a cache of this process (`FallbackCache`): the same rules,
per process instead of shared, until the shared cache answers again. It is logged once a minute at
most, and the server status reports the cache as Ko meanwhile.
"""

import contextlib
import functools
import logging
import threading
import time

from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections

log = logging.getLogger("bots.status.services")

PROBE_SECONDS = 0.5
PROBE_CONNECT_TIMEOUT_SECONDS = 2
# Clients are told to come back after this long (Retry-After); the database is probed far more often.
RETRY_AFTER_SECONDS = 5
CACHE_LOG_EVERY_SECONDS = 60
# After the shared cache failed, calls skip it for this long and use the process's memory at once: a
# Redis that times out (a host gone) instead of refusing would cost every call its timeout.
CACHE_SKIP_SECONDS = 3
DATABASE_DOWN = "the database is unavailable"
CACHE_DOWN = "the shared cache (Redis) is unreachable: each process counts in its own memory"

# Connection failures a server reports with an SQLSTATE: its shutdown (57P01-57P03) and class 08.
_CONNECTION_SQLSTATES = ("57P01", "57P02", "57P03")


def is_database_failure(error: BaseException) -> bool:
    """An error of the database rather than of the request: answered 503, never 500."""
    return isinstance(error, OperationalError | InterfaceError) or is_connection_failure(error)


def is_connection_failure(error: BaseException) -> bool:
    """The database could not be reached (refused, closed, shut down, no connection in time)."""
    try:
        import psycopg
        import psycopg_pool
    except ImportError:  # no PostgreSQL driver: SQLite, whose errors never mean "unreachable"
        return False
    seen = 0
    while error is not None and seen < 5:
        if isinstance(error, psycopg_pool.PoolClosed):
            return False  # the pool this watch replaced: not a new outage
        if isinstance(error, psycopg_pool.PoolTimeout | psycopg.InterfaceError):
            return True
        if isinstance(error, psycopg.OperationalError):
            state = getattr(error, "sqlstate", None)
            return state is None or state.startswith("08") or state in _CONNECTION_SQLSTATES
        error, seen = error.__cause__, seen + 1
    return False


def is_pool_timeout(error: BaseException) -> bool:
    """No connection of the pool came free in time: the database may be down, or only busy."""
    try:
        import psycopg_pool
    except ImportError:
        return False
    seen = 0
    while error is not None and seen < 5:
        if isinstance(error, psycopg_pool.PoolTimeout):
            return True
        error, seen = error.__cause__, seen + 1
    return False


class DatabaseWatch:
    """Down or not, for this process; while down, a thread probes and brings the service back."""

    def __init__(self, alias: str = DEFAULT_DB_ALIAS):
        self.alias = alias
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._error = ""
        self._thread: threading.Thread | None = None
        # Bumped on every change, so that a remembered server status is not reused across one.
        self.changes = 0

    def down(self) -> str | None:
        """The reason while the database is known to be down, else None."""
        return DATABASE_DOWN if self._down_since is not None else None

    def details(self) -> dict:
        with self._lock:
            if self._down_since is None:
                return {}
            return {"downForSeconds": round(time.monotonic() - self._down_since, 1), "error": self._error}

    def failed(self, error: BaseException) -> bool:
        """Something met `error`; if it means the database is unreachable, the watch starts. Returns
        whether the database is now known to be down."""
        if not is_connection_failure(error):
            return self.down() is not None
        if self.down() is None and is_pool_timeout(error) and self._answers():
            # Every pooled connection was busy, yet a fresh one answers: the server is saturated, not
            # cut off from its database. This request gets its 503; the others are still served.
            log.warning("No pooled database connection came free in time (%s); the database answers", error)
            return False
        with self._lock:
            self._error = f"{type(error).__name__}: {str(error)[:200]}"
            if self._down_since is not None:
                return True
            self._down_since = time.monotonic()
            self.changes += 1
            self._thread = threading.Thread(target=self._watch, name="database-watch", daemon=True)
            self._thread.start()
        log.error(
            "The database is unreachable (%s): requests are answered 503 at once; probing every %s s",
            self._error,
            PROBE_SECONDS,
        )
        return True

    def _watch(self) -> None:
        # Requests that were already waiting for a pooled connection when the outage was found would
        # wait the pool's whole timeout (10 s): closing the pool fails them now (503), and nothing
        # else asks the database until it answers again.
        self._renew_pool()
        while True:
            time.sleep(PROBE_SECONDS)
            try:
                self._probe()
            except Exception as error:  # still down: keep the latest reason for the status
                with self._lock:
                    self._error = f"{type(error).__name__}: {str(error)[:200]}"
                continue
            self._renew_pool()
            with self._lock:
                down_for = time.monotonic() - self._down_since
                self._down_since, self._error, self._thread = None, "", None
                self.changes += 1
            log.warning("The database answers again after %.1f s: requests are served", down_for)
            return

    def _answers(self) -> bool:
        try:
            self._probe()
        except Exception:
            return False
        return True

    def _probe(self) -> None:
        """One fresh connection, outside the pool (whose own attempts may be backing off)."""
        wrapper = connections.create_connection(self.alias)
        if wrapper.vendor == "postgresql" and wrapper.settings_dict["OPTIONS"].get("pool"):
            import psycopg

            params = wrapper.get_connection_params()
            params["connect_timeout"] = PROBE_CONNECT_TIMEOUT_SECONDS
            with psycopg.connect(**params) as probe:
                probe.execute("SELECT 1")
            return
        try:
            with wrapper.cursor() as cursor:
                cursor.execute("SELECT 1")
        finally:
            wrapper.close()

    def _renew_pool(self) -> None:
        """The pool is closed, and the next use makes a new one: the old one's reconnection attempts
        may be minutes apart by now, and its waiters fail at once. Connections still lent out go back
        to the old pool, which closes them."""
        wrapper = connections[self.alias]
        if wrapper.vendor != "postgresql" or not wrapper.settings_dict["OPTIONS"].get("pool"):
            return
        with contextlib.suppress(Exception):
            wrapper.close_pool()


database = DatabaseWatch()


def database_down() -> str | None:
    return database.down()


# ------------------------------------------------------------------------------------------------ cache


def is_cache_outage(error: BaseException) -> bool:
    """The shared cache could not be reached (not a cache miss or a wrong use of it)."""
    if isinstance(error, ConnectionError | TimeoutError):
        return True
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:
        return False
    return isinstance(error, RedisConnectionError | RedisTimeoutError)


_cache_lock = threading.Lock()
_cache_logged: dict[str, float] = {}
_cache_last_failure = 0.0


def cache_failed(error: BaseException, user: str) -> None:
    """`user` (e.g. "login lockout") fell back to this process because the shared cache failed."""
    global _cache_last_failure
    now = time.monotonic()
    with _cache_lock:
        _cache_last_failure = now
        if now - _cache_logged.get(user, -CACHE_LOG_EVERY_SECONDS) < CACHE_LOG_EVERY_SECONDS:
            return
        _cache_logged[user] = now
    log.warning(
        "The shared cache is unreachable (%s: %s): %s goes on with this process's memory "
        "(logged at most once a minute)",
        type(error).__name__,
        str(error)[:200],
        user,
    )


def cache_failed_recently(seconds: float = CACHE_LOG_EVERY_SECONDS) -> bool:
    return _cache_last_failure > 0 and time.monotonic() - _cache_last_failure < seconds


def shared_cache_skipped() -> bool:
    """The shared cache failed a moment ago: go to the process's memory without trying it again."""
    return cache_failed_recently(CACHE_SKIP_SECONDS)


class FallbackCache:
    """The shared cache, or while it is unreachable a cache of this process only (logged).

    It has the cache's methods (get, get_many, set, add, incr, touch, delete, delete_many…). Each
    call goes to the shared cache first (unless it failed in the last CACHE_SKIP_SECONDS), so nothing
    needs doing when it comes back; what was counted in this process meanwhile stays here and
    expires."""

    def __init__(self, user: str, max_entries: int = 10_000):
        self.user = user
        self.local = LocMemCache(f"fallback:{user}", {"OPTIONS": {"MAX_ENTRIES": max_entries}})

    def __getattr__(self, operation: str):
        return functools.partial(self._call, operation)

    def hit(self, key: str, window_seconds: int) -> int:
        """One more hit on a counter that starts at the first one and lasts the window; the count so far."""
        self.add(key, 0, window_seconds)
        try:
            return self.incr(key)
        except ValueError:  # the key expired between add and incr
            self.set(key, 1, window_seconds)
            return 1

    def _call(self, operation: str, *args, **kwargs):
        if shared_cache_skipped():
            return getattr(self.local, operation)(*args, **kwargs)
        try:
            return getattr(cache, operation)(*args, **kwargs)
        except Exception as error:
            if not is_cache_outage(error):
                raise
            cache_failed(error, self.user)
            return getattr(self.local, operation)(*args, **kwargs)
