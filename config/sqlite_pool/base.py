"""Django's SQLite backend, with each process keeping its closed connections for the next request.

Under ASGI (daphne for `make run`, uvicorn workers) every request runs its sync code on a thread of its
own, so Django's persistent connections (CONN_MAX_AGE) are never reused there: each talk opened a SQLite
connection (Django's functions registered, the PRAGMAs run), about 0.5 ms, a tenth of a lexical talk.
Here a connection Django closes goes back to a per-process pool instead, and the next request takes it:
SQLite connections do not go stale, and Django already opens them shareable between threads
(check_same_thread=False); one thread uses a connection at a time, as the pool hands each to one.

A connection comes back out of any transaction (rolled back if one was left open). An in-memory database
never closes its connection (Django's rule) and is not pooled. The pool belongs to the process that
filled it: after a fork the child starts its own.
"""

import os
import threading

from django.db.backends.sqlite3 import base

# Connections kept idle per process and database file; a burst beyond this closes the extras.
IDLE_MAX = 32


class _Pool:
    def __init__(self):
        self.lock = threading.Lock()
        self.idle = []
        self.pid = os.getpid()

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
            found = _pools[name] = _Pool()
        return found


class DatabaseWrapper(base.DatabaseWrapper):
    def _pooled(self) -> bool:
        return not self.is_in_memory_db()

    def get_new_connection(self, conn_params):
        if self._pooled():
            connection = pool_of(str(self.settings_dict["NAME"])).take()
            if connection is not None:
                return connection
        return super().get_new_connection(conn_params)

    def _close(self):
        if self.connection is not None and self._pooled():
            with self.wrap_database_errors:
                if self.connection.in_transaction:
                    self.connection.rollback()
                if pool_of(str(self.settings_dict["NAME"])).give(self.connection):
                    return
        super()._close()
