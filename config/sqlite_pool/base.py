"""Django's SQLite backend, with each process keeping its closed connections for the next request.

Django closes a request's connection when the request ends (CONN_MAX_AGE 0), and under its own ASGI
handler every request ran on a new thread, where a persistent connection could never be reused either:
each talk opened a SQLite connection (Django's functions registered, the PRAGMAs run): 0.29 ms of CPU,
against 0.01 ms pooled. Here a connection Django closes goes back to a per-process pool instead, and the
next request takes it, whichever thread serves it (config/http.py lends requests pooled threads):
SQLite connections do not go stale, and Django already opens them shareable between threads
(check_same_thread=False); one thread uses a connection at a time, as the pool hands each to one.

A connection comes back out of any transaction (rolled back if one was left open). An in-memory database
never closes its connection (Django's rule) and is not pooled. The pool belongs to the process that
filled it: after a fork the child starts its own.

Writers queue. SQLite has one writer at a time; a transaction that finds the database locked waits in
SQLite's busy handler, which sleeps 1, 2, 5… up to 100 ms between tries, so with dozens of talks in
flight some waited seconds. Here a transaction (BEGIN IMMEDIATE) first takes the process's writer lock
for that database file, so talks of one process write one after the other, each woken as soon as the
previous commits; then an advisory lock on a file beside the database (`<name>-writer`), so that the
writers of several processes (gunicorn's workers) take turns the same way instead of sleeping in the
busy handler: at most one thread per process waits on it, polling every half millisecond.
"""

import fcntl
import os
import threading
import time

from django.db import OperationalError
from django.db.backends.sqlite3 import base

# Connections kept idle per process and database file; a burst beyond this closes the extras.
IDLE_MAX = 32


class _Pool:
    def __init__(self, name: str):
        self.lock = threading.Lock()
        self.idle = []
        self.pid = os.getpid()
        self.writer = threading.Lock()
        self.name = name
        self._writer_file = None

    def lock_writers(self, timeout: float) -> bool:
        """The processes' writer lock, taken by the thread holding this process's `writer`."""
        if self._writer_file is None:
            self._writer_file = os.open(f"{self.name}-writer", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(self._writer_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.0005)

    def unlock_writers(self) -> None:
        fcntl.flock(self._writer_file, fcntl.LOCK_UN)

    def take(self):
        with self.lock:
            return self.idle.pop() if self.idle else None

    def give(self, connection) -> bool:
        with self.lock:
            if len(self.idle) >= IDLE_MAX:
                return False
            self.idle.append(connection)
            return True


_pools: dict[str, _Pool] = {}
_pools_lock = threading.Lock()


def pool_of(name: str) -> _Pool:
    with _pools_lock:
        found = _pools.get(name)
        if found is None or found.pid != os.getpid():
            found = _pools[name] = _Pool(name)
        return found


class DatabaseWrapper(base.DatabaseWrapper):
    _writing = False
    _writers_locked = False

    def _pooled(self) -> bool:
        return not self.is_in_memory_db()

    def _start_transaction_under_autocommit(self):
        pool = pool_of(str(self.settings_dict["NAME"]))
        # As long as SQLite itself would wait (the busy timeout), then its own error.
        timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5))
        started = time.monotonic()
        if not pool.writer.acquire(timeout=timeout):
            raise OperationalError("database is locked")
        # An in-memory database lives in this process only.
        self._writers_locked = self._pooled()
        if self._writers_locked and not pool.lock_writers(timeout - (time.monotonic() - started)):
            pool.writer.release()
            raise OperationalError("database is locked")
        self._writing = True
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._stop_writing()
            raise

    def _stop_writing(self):
        if self._writing:
            self._writing = False
            pool = pool_of(str(self.settings_dict["NAME"]))
            if self._writers_locked:
                pool.unlock_writers()
            pool.writer.release()

    def _commit(self):
        try:
            return super()._commit()
        finally:
            self._stop_writing()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._stop_writing()

    def get_new_connection(self, conn_params):
        if self._pooled():
            connection = pool_of(str(self.settings_dict["NAME"])).take()
            if connection is not None:
                return connection
        return super().get_new_connection(conn_params)

    def _close(self):
        try:
            if self.connection is not None and self._pooled():
                with self.wrap_database_errors:
                    if self.connection.in_transaction:
                        self.connection.rollback()
                    if pool_of(str(self.settings_dict["NAME"])).give(self.connection):
                        return
            super()._close()
        finally:
            self._stop_writing()
