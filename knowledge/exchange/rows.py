"""Bulk row writing for the import: PostgreSQL COPY or SQLite executemany, and the id bookkeeping
that lets an import keep the file's ids (tagIDs, knowledge ids) when they are free.

These write rows as they are: no model save(), no signals (the import bumps the knowledge version
once at the end), values already in the database's form.
"""

import json
import uuid

from django.db import connection

BATCH_ROWS = 20_000
# SQLite's historical limit on query parameters; PostgreSQL takes more, the chunks just get smaller.
IN_CHUNK = 900


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def json_value(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def uuid_value(value: str):
    parsed = uuid.UUID(str(value))
    return parsed if connection.vendor == "postgresql" else parsed.hex


def datetime_value(value):
    return connection.ops.adapt_datetimefield_value(value)


class RowSink:
    """Rows for one table, written in batches (COPY on PostgreSQL, executemany elsewhere)."""

    def __init__(self, model, fields: list[str], batch: int = BATCH_ROWS):
        opts = model._meta
        self.table = quote(opts.db_table)
        self.columns = ", ".join(quote(opts.get_field(name).column) for name in fields)
        self.width = len(fields)
        self.batch = batch
        self.rows: list[tuple] = []
        self.written = 0

    def add(self, row: tuple):
        self.rows.append(row)
        if len(self.rows) >= self.batch:
            self.flush()

    def flush(self):
        if not self.rows:
            return
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                with cursor.cursor.copy(f"COPY {self.table} ({self.columns}) FROM STDIN") as copy:
                    for row in self.rows:
                        copy.write_row(row)
            else:
                placeholders = ", ".join(["%s"] * self.width)
                cursor.executemany(f"INSERT INTO {self.table} ({self.columns}) VALUES ({placeholders})", self.rows)
        self.written += len(self.rows)
        self.rows.clear()


def _sequence(model) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [model._meta.db_table, model._meta.pk.column])
        return cursor.fetchone()[0]


def highest_allocated_id(model) -> int:
    """The highest id the table's sequence ever handed out: ids up to it are never handed out again,
    so a freed one can be reused without racing the sequence."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            sequence = _sequence(model)
            if sequence is None:
                return 0
            cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
            last_value, is_called = cursor.fetchone()
            return last_value if is_called else last_value - 1
        if connection.vendor == "sqlite":
            cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [model._meta.db_table])
            row = cursor.fetchone()
            return row[0] if row else 0
    return 0


def allocate_ids(model, count: int) -> list[int]:
    """`count` fresh ids from the table's own sequence (so later ordinary inserts never collide)."""
    if count <= 0:
        return []
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT nextval(%s) FROM generate_series(1, %s)", [_sequence(model), count])
            return [row[0] for row in cursor.fetchall()]
        if connection.vendor == "sqlite":
            # Inside the import's write transaction SQLite holds the database lock: no one else allocates.
            table = model._meta.db_table
            start = highest_allocated_id(model)
            cursor.execute("SELECT COUNT(*) FROM sqlite_sequence WHERE name = %s", [table])
            if cursor.fetchone()[0]:
                cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [start + count, table])
            else:
                cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, start + count])
            return list(range(start + 1, start + count + 1))
    raise NotImplementedError(f"Knowledge base import supports PostgreSQL and SQLite, not {connection.vendor}.")


def ids_taken_elsewhere(model, ids, bot) -> bool:
    """Whether any of `ids` belongs to a row of another bot."""
    ids = list(ids)
    for start in range(0, len(ids), IN_CHUNK):
        if model._base_manager.filter(pk__in=ids[start : start + IN_CHUNK]).exclude(bot=bot).exists():
            return True
    return False


def plan_ids(model, ids, bot) -> dict[int, int] | None:
    """None when the file's ids can be kept (all free of other bots and already handed out by the
    sequence); else a map from each file id to a fresh id, in file order."""
    if not ids:
        return None
    if max(ids) <= highest_allocated_id(model) and not ids_taken_elsewhere(model, ids, bot):
        return None
    return dict(zip(ids, allocate_ids(model, len(ids)), strict=True))


def refresh_statistics():
    """After a bulk load, let PostgreSQL's planner know the tables' new sizes at once (autovacuum
    would, minutes later; until then exports and matching queries pick sequential scans)."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    from ..models import Answer, Formulation, KnowledgeItem, Tag

    tables = ", ".join(quote(model._meta.db_table) for model in (KnowledgeItem, Formulation, Answer, Tag))
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {tables}")
