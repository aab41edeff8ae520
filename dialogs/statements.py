"""The talk's statements, written once per process from the models' own metadata.

Django's ORM spends about 0.3-0.45 ms of CPU building each statement of a talk and its model instances
(bench/TALK.md: the dialog read, the interaction insert, the dialog update), ten times what the database
takes to run them. A talk is the platform's hot path, so those statements are compiled here once per
database connection kind and run as plain parameterised SQL on Django's own connection: the same
transaction, the same query log (tests count them), the fields' own adapters on the way in and the
database's converters on the way out, and ordinary model instances as the result.

References to knowledge items (the interaction's item, the dialog's decision-tree node) are written as
"that id if the item exists, else NULL", evaluated by the statement itself: an import or a delete that
removes the item in the instant of the talk leaves a NULL, never a foreign key failure at the commit.
On SQLite the talk's transaction holds the write lock (BEGIN IMMEDIATE) from that statement to its
commit, so the item cannot go meanwhile; on PostgreSQL the lookup takes the item's key-share lock (what
the foreign key check takes anyway): it waits for a deletion in progress and reads NULL once it is
committed, and a deletion that starts later waits for the talk's commit and then unlinks it.
"""

from contextlib import nullcontext
from functools import cache

from django.db import connections, router, transaction

from bots.models import Bot
from bots.statements import Rows, statement_cursor
from knowledge.models import KnowledgeItem

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


def _inserted_fields(model) -> list:
    opts = model._meta
    return [field for field in opts.local_concrete_fields if field is not opts.auto_field]


def _value_sql(field, connection) -> str:
    """A field's value in a statement: a parameter, or for a knowledge item reference the item's id if it
    exists when the statement runs, else NULL (the module's docstring says why)."""
    if not (field.is_relation and field.related_model is KnowledgeItem):
        return "%s"
    quote = connection.ops.quote_name
    item = KnowledgeItem._meta
    lock = " FOR KEY SHARE" if connection.vendor == "postgresql" else ""
    pk = quote(item.pk.column)
    return f"(SELECT {pk} FROM {quote(item.db_table)} WHERE {pk} = %s{lock})"


def _insert_sql(model, connection, values: dict | None = None) -> str:
    """INSERT of every field but the primary key, each a parameter (_value_sql) unless `values` gives its SQL."""
    quote = connection.ops.quote_name
    fields = _inserted_fields(model)
    values = {field: _value_sql(field, connection) for field in fields} | (values or {})
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES ({', '.join(values[field] for field in fields)})"
    )


def _insert_params(obj, fields: list, connection) -> list:
    return [field.get_db_prep_save(field.pre_save(obj, True), connection=connection) for field in fields]


def _stored(obj, pk, alias: str) -> None:
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = alias


@cache
def _insert(model, alias: str, vendor: str):
    connection = connections[alias]
    sql = _insert_sql(model, connection)
    returning = connection.features.can_return_columns_from_insert
    if returning:
        sql += f" RETURNING {connection.ops.quote_name(model._meta.pk.column)}"
    return sql, _inserted_fields(model), returning


def insert(obj) -> None:
    """Insert a new Dialog or Interaction (no save signals: nothing listens to them), setting its pk."""
    model = type(obj)
    assert model in (Dialog, Interaction), model  # models whose saves trigger nothing else
    alias = router.db_for_write(model)
    connection = connections[alias]
    sql, fields, returning = _insert(model, alias, connection.vendor)
    params = _insert_params(obj, fields, connection)
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, params)
        if returning:
            pk = cursor.fetchone()[0]
        else:
            pk = connection.ops.last_insert_id(cursor, model._meta.db_table, model._meta.pk.column)
    _stored(obj, pk, alias)


@cache
def _update(model, names: tuple, alias: str, vendor: str, merge_variables: bool = False):
    connection = connections[alias]
    quote = connection.ops.quote_name
    opts = model._meta
    fields = [opts.get_field(name) for name in names]
    sets = [f"{quote(field.column)} = {_value_sql(field, connection)}" for field in fields]
    if merge_variables:
        column = quote(opts.get_field("variables").column)
        sets.append(f"{column} = {variables.merge_sql(vendor, column)}")
    return f"UPDATE {quote(opts.db_table)} SET {', '.join(sets)} WHERE {quote(opts.pk.column)} = %s", fields


def _update_params(obj, fields: list, changed_variables: dict | None, connection) -> list:
    params = [field.get_db_prep_save(getattr(obj, field.attname), connection=connection) for field in fields]
    if changed_variables:
        params.extend(variables.merge_params(connection.vendor, changed_variables))
    params.append(type(obj)._meta.pk.get_db_prep_value(obj.pk, connection))
    return params


def update(obj, names: tuple, changed_variables: dict | None = None) -> None:
    """Write those fields of a stored Dialog (the talk's dialog update), as QuerySet.update would; and
    merge `changed_variables` (dialogs/variables.py) into its stored variables, when there are any."""
    model = type(obj)
    alias = router.db_for_write(model)
    connection = connections[alias]
    sql, fields = _update(model, names, alias, connection.vendor, bool(changed_variables))
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, _update_params(obj, fields, changed_variables, connection))


def stores_talk_at_once() -> bool:
    """Whether store_talk is available: PostgreSQL, whose data-modifying WITH writes two tables in one
    statement. SQLite's transaction costs no round trip: there, the talk keeps its transaction."""
    return connections[router.db_for_write(Interaction)].vendor == "postgresql"


@cache
def _talk_at_once(alias: str, vendor: str, created: bool, names: tuple, merge_variables: bool):
    connection = connections[alias]
    quote = connection.ops.quote_name
    pk = quote(Interaction._meta.pk.column)
    if created:
        dialog_sql = f"{_insert_sql(Dialog, connection)} RETURNING {quote(Dialog._meta.pk.column)}"
        # The interaction's dialog is the one the same statement inserts.
        dialog_field = Interaction._meta.get_field("dialog")
        chosen = f"(SELECT {quote(Dialog._meta.pk.column)} FROM {quote('talk_dialog')})"
        interaction_sql = _insert_sql(Interaction, connection, {dialog_field: chosen})
        interaction_fields = [field for field in _inserted_fields(Interaction) if field is not dialog_field]
        returning = f" RETURNING {quote(dialog_field.column)}, {pk}"
        dialog_fields = _inserted_fields(Dialog)
    else:
        dialog_sql, dialog_fields = _update(Dialog, names, alias, vendor, merge_variables)
        interaction_sql, interaction_fields = _insert_sql(Interaction, connection), _inserted_fields(Interaction)
        returning = f" RETURNING {quote(Interaction._meta.get_field('dialog').column)}, {pk}"
    sql = f"WITH {quote('talk_dialog')} AS ({dialog_sql}) {interaction_sql}{returning}"
    return sql, dialog_fields, interaction_fields


def store_talk(dialog, interaction, names: tuple, changed_variables: dict | None = None) -> None:
    """A plain talk's writes in one statement (PostgreSQL, see stores_talk_at_once): the interaction's
    insert with the dialog's insert (a new dialog) or its update (`names` and `changed_variables`, as
    `update` writes them). One statement is atomic on its own: no BEGIN and COMMIT, one round trip
    where a transaction of two statements took four."""
    alias = router.db_for_write(Interaction)
    connection = connections[alias]
    created = dialog.pk is None
    sql, dialog_fields, interaction_fields = _talk_at_once(
        alias, connection.vendor, created, names if not created else (), bool(changed_variables) and not created
    )
    if created:
        params = _insert_params(dialog, dialog_fields, connection)
    else:
        params = _update_params(dialog, dialog_fields, changed_variables, connection)
    params += _insert_params(interaction, interaction_fields, connection)
    # Inside a caller's transaction a failed statement would abort all of it: a savepoint keeps the
    # failure to this talk, as Django's atomic does.
    savepoint = transaction.atomic(using=alias) if connection.in_atomic_block else nullcontext()
    with savepoint, statement_cursor(connection) as cursor:
        cursor.execute(sql, params)
        dialog_id, interaction_id = cursor.fetchone()
    if created:
        _stored(dialog, dialog_id, alias)
        interaction.dialog = dialog  # its dialog_id, now known
    _stored(interaction, interaction_id, alias)


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
