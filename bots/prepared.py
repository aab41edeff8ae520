"""Prepared statements for the talk's compiled statements on PostgreSQL (bots/statements.py, dialogs/statements.py).

Django binds parameters on the client: every statement reaches PostgreSQL as new text, to be parsed and
planned again at every talk. A compiled statement never changes, so its cursor here binds parameters on
the server, and psycopg prepares the statement on its connection the first time it runs: from then on,
PostgreSQL only executes it. Any other statement keeps Django's client-side binding (its cursors never
prepare, whatever the connection's threshold).

DATABASE_PREPARED_STATEMENTS=off turns this off, for a connection pooler in transaction mode that cannot
keep a prepared statement on the server connection a later transaction lands on.
"""

import psycopg
from django.conf import settings
from django.db.backends.postgresql.base import TIMESTAMPTZ_OID, CursorDebugWrapper
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.db.backends.utils import CursorWrapper
from psycopg.pq import Format


def enabled() -> bool:
    return getattr(settings, "DATABASE_PREPARED_STATEMENTS", True)


class PreparedDebugWrapper(CursorDebugWrapper):
    """Django's query log (DEBUG, tests) for a server-binding cursor, whose last query psycopg does not
    keep as text: each statement is logged as Django logs its own, with its parameters in place."""

    def execute(self, sql, params=None):
        with self.debug_sql(self.db.ops.compose_sql(sql, params), params):
            return CursorWrapper.execute(self, sql, params)


def prepared_cursor(connection):
    """Django's cursor wrapper (the query log, error wrapping) around a server-binding psycopg cursor;
    as `connection.cursor()` would give, the connection is health-checked and opened if need be."""
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        raw = connection.connection
        if raw.prepare_threshold != 0:
            # Prepare at the first run: only server-binding cursors (this module's) ever prepare.
            raw.prepare_threshold = 0
        cursor = psycopg.Cursor(raw)
        # As Django's own cursors: the connection's time zone for timestamps read (see create_cursor).
        if connection.timezone != raw.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT).timezone:
            register_tzloader(connection.timezone, cursor)
    connection.validate_thread_sharing()
    return PreparedDebugWrapper(cursor, connection) if connection.queries_logged else connection.make_cursor(cursor)
