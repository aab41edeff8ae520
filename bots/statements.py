"""Compiled statements: a model's rows read as plain parameterised SQL on Django's own connection.

Django's ORM spends a few tenths of a millisecond of CPU building each statement and its model instances,
more than the database takes to run the small reads of a talk (bench/TALK.md). The hot path's reads are
written once per process from the models' metadata (columns, the database's converters on the way out)
and give ordinary model instances; dialogs/statements.py holds the talk's own.
"""

from functools import cache

from django.db import connections, router

from .models import Bot


def statement_cursor(connection):
    """The cursor a compiled statement runs on: on PostgreSQL a prepared one (bots/prepared.py),
    elsewhere Django's own."""
    if connection.vendor == "postgresql":
        from . import prepared  # PostgreSQL's driver only where it runs

        if prepared.enabled():
            return prepared.prepared_cursor(connection)
    return connection.cursor()


class Rows:
    """How one model's rows are read on one connection: its columns in order and their converters."""

    def __init__(self, model, connection, table_alias: str):
        quote = connection.ops.quote_name
        self.model = model
        self.fields = list(model._meta.concrete_fields)
        self.columns = [f"{quote(table_alias)}.{quote(field.column)}" for field in self.fields]
        self.converters = []
        for index, field in enumerate(self.fields):
            column = field.get_col(table_alias)
            found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if found:
                self.converters.append((index, found, column))

    def instance(self, connection, values: list):
        for index, converters, column in self.converters:
            value = values[index]
            for convert in converters:
                value = convert(value, column, connection)
            values[index] = value
        return self.model.from_db(connection.alias, None, values)


@cache
def _bot_with_uuid(alias: str, vendor: str):
    connection = connections[alias]
    quote = connection.ops.quote_name
    rows = Rows(Bot, connection, "b")
    sql = (
        f"SELECT {', '.join(rows.columns)} FROM {quote(Bot._meta.db_table)} {quote('b')} "
        f"WHERE {quote('b')}.{quote(Bot._meta.get_field('uuid').column)} = %s LIMIT 1"
    )
    return sql, rows


def bot_with_uuid(bot_uuid) -> Bot | None:
    """The bot of that UUID (a uuid.UUID), or None."""
    alias = router.db_for_read(Bot)
    connection = connections[alias]
    sql, rows = _bot_with_uuid(alias, connection.vendor)
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, [Bot._meta.get_field("uuid").get_db_prep_value(bot_uuid, connection)])
        row = cursor.fetchone()
    return None if row is None else rows.instance(connection, list(row))
