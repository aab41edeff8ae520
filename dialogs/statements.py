"""The talk's statements, written once per process from the models' own metadata.

Django's ORM spends about 0.3-0.45 ms of CPU building each statement of a talk and its model instances
(bench/TALK.md: the dialog read, the interaction insert, the dialog update), ten times what the database
takes to run them. A talk is the platform's hot path, so those statements are compiled here once per
database connection kind and run as plain parameterised SQL on Django's own connection: the same
transaction, the same query log (tests count them), the fields' own adapters on the way in and the
database's converters on the way out, and ordinary model instances as the result.
"""

from functools import cache

from django.db import connections, router

from bots.models import Bot
from bots.statements import Rows, statement_cursor

from . import variables
from .activations import ComplementActivation
from .models import Dialog, Interaction


@cache
def _dialog_with_bot(alias: str, vendor: str):
    connection = connections[alias]
    quote = connection.ops.quote_name
    dialog, bot = Rows(Dialog, connection, "d"), Rows(Bot, connection, "b")
    sql = (
        f"SELECT {', '.join(dialog.columns + bot.columns)} "
        f"FROM {quote(Dialog._meta.db_table)} {quote('d')} "
        f"INNER JOIN {quote(Bot._meta.db_table)} {quote('b')} "
        f"ON ({quote('d')}.{quote(Dialog._meta.get_field('bot').column)} = {quote('b')}.{quote(Bot._meta.pk.column)}) "
        f"WHERE ({quote('d')}.{quote(Dialog._meta.get_field('uuid').column)} = %s "
        f"AND {quote('b')}.{quote(Bot._meta.get_field('uuid').column)} = %s) LIMIT 1"
    )
    return sql, dialog, bot


def dialog_with_bot(context_uuid, bot_uuid) -> Dialog | None:
    """The dialog of that context id in the bot of that UUID, its bot loaded by the same statement."""
    alias = router.db_for_read(Dialog)
    connection = connections[alias]
    sql, dialog_rows, bot_rows = _dialog_with_bot(alias, connection.vendor)
    uuid_field = Dialog._meta.get_field("uuid")
    params = [
        uuid_field.get_db_prep_value(context_uuid, connection),
        uuid_field.get_db_prep_value(bot_uuid, connection),
    ]
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(dialog_rows.fields)
    dialog = dialog_rows.instance(connection, list(row[:split]))
    Dialog.bot.field.set_cached_value(dialog, bot_rows.instance(connection, list(row[split:])))
    return dialog


@cache
def _insert(model, alias: str, vendor: str):
    connection = connections[alias]
    quote = connection.ops.quote_name
    opts = model._meta
    fields = [field for field in opts.local_concrete_fields if field is not opts.auto_field]
    sql = (
        f"INSERT INTO {quote(opts.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    returning = connection.features.can_return_columns_from_insert
    if returning:
        sql += f" RETURNING {quote(opts.pk.column)}"
    return sql, fields, returning


def insert(obj) -> None:
    """Insert a new Dialog or Interaction (no save signals: nothing listens to them), setting its pk."""
    model = type(obj)
    assert model in (Dialog, Interaction), model  # models whose saves trigger nothing else
    alias = router.db_for_write(model)
    connection = connections[alias]
    sql, fields, returning = _insert(model, alias, connection.vendor)
    params = [field.get_db_prep_save(field.pre_save(obj, True), connection=connection) for field in fields]
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, params)
        if returning:
            pk = cursor.fetchone()[0]
        else:
            pk = connection.ops.last_insert_id(cursor, model._meta.db_table, model._meta.pk.column)
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = alias


@cache
def _update(model, names: tuple, alias: str, vendor: str, merge_variables: bool = False):
    connection = connections[alias]
    quote = connection.ops.quote_name
    opts = model._meta
    fields = [opts.get_field(name) for name in names]
    sets = [f"{quote(field.column)} = %s" for field in fields]
    if merge_variables:
        column = quote(opts.get_field("variables").column)
        sets.append(f"{column} = {variables.merge_sql(vendor, column)}")
    return f"UPDATE {quote(opts.db_table)} SET {', '.join(sets)} WHERE {quote(opts.pk.column)} = %s", fields


def update(obj, names: tuple, changed_variables: dict | None = None) -> None:
    """Write those fields of a stored Dialog (the talk's dialog update), as QuerySet.update would; and
    merge `changed_variables` (dialogs/variables.py) into its stored variables, when there are any."""
    model = type(obj)
    alias = router.db_for_write(model)
    connection = connections[alias]
    sql, fields = _update(model, names, alias, connection.vendor, bool(changed_variables))
    params = [field.get_db_prep_save(getattr(obj, field.attname), connection=connection) for field in fields]
    if changed_variables:
        params.extend(variables.merge_params(connection.vendor, changed_variables))
    params.append(model._meta.pk.get_db_prep_value(obj.pk, connection))
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, params)


@cache
def _remembered(alias: str, vendor: str) -> str:
    connection = connections[alias]
    quote = connection.ops.quote_name
    activation, interaction = ComplementActivation._meta, Interaction._meta

    def column(opts, alias_, name):
        return f"{quote(alias_)}.{quote(opts.get_field(name).column)}"

    # Both datetimes are columns compared in the database: no value of ours needs its adapter.
    since = (
        f"SELECT COUNT(*) FROM {quote(interaction.db_table)} {quote('i')} "
        f"WHERE {column(interaction, 'i', 'dialog')} = {column(activation, 'a', 'dialog')} "
        f"AND {column(interaction, 'i', 'created_at')} > {column(activation, 'a', 'last_shown_at')}"
    )
    return (
        f"SELECT {column(activation, 'a', 'complement_id')}, {column(activation, 'a', 'times')}, ({since}) "
        f"FROM {quote(activation.db_table)} {quote('a')} "
        f"WHERE {column(activation, 'a', 'dialog')} = %s AND {column(activation, 'a', 'complement_id')} IN ({{}})"
    )


def remembered(dialog_id: int, complement_ids: list[int]) -> dict[int, tuple[int, int]]:
    """What the dialog remembers of these limited complements, in one statement: complement id →
    (times shown, interactions stored in the dialog since the last time)."""
    alias = router.db_for_read(ComplementActivation)
    connection = connections[alias]
    sql = _remembered(alias, connection.vendor).format(", ".join(["%s"] * len(complement_ids)))
    with connection.cursor() as cursor:
        cursor.execute(sql, [dialog_id, *complement_ids])
        rows = cursor.fetchall()
    return {complement_id: (times, since or 0) for complement_id, times, since in rows}
