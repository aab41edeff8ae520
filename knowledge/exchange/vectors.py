"""Keeping the formulations' computed vectors across a re-import: the file does not carry them
(they belong to the matcher's model), and computing them again for a large bot takes minutes.

Before the old formulations are deleted their vectors go to a temporary table; once the file's
formulations are in, each one whose item, language and text are unchanged gets its vector back.
Only when the import keeps the items' ids (a bot's own export, re-imported): then "same item" is
"same id". Everything happens in the database, inside the import's transaction.
"""

from django.db import connection

from ..models import Formulation, KnowledgeItem
from .rows import quote

TABLE = "kb_kept_vectors"


def stash(bot) -> bool:
    """Copy the bot's computed vectors aside; False when there are none."""
    formulations = quote(Formulation._meta.db_table)
    items = quote(KnowledgeItem._meta.db_table)
    drop_on_commit = " ON COMMIT DROP" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")
        cursor.execute(
            f"CREATE TEMPORARY TABLE {TABLE}{drop_on_commit} AS "
            f"SELECT f.item_id, f.language, f.text, f.vector FROM {formulations} f "
            f"JOIN {items} k ON k.id = f.item_id WHERE k.bot_id = %s AND f.vector IS NOT NULL",
            [bot.pk],
        )
        cursor.execute(f"SELECT COUNT(*) FROM {TABLE}")
        if cursor.fetchone()[0]:
            cursor.execute(f"CREATE INDEX {TABLE}_key ON {TABLE} (item_id, language, text)")
            return True
        cursor.execute(f"DROP TABLE {TABLE}")
    return False


def restore() -> int:
    """Give each unchanged formulation its vector back; returns how many got one."""
    formulations = quote(Formulation._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {formulations} SET vector = k.vector FROM {TABLE} k "
            f"WHERE {formulations}.item_id = k.item_id AND {formulations}.language = k.language "
            f"AND {formulations}.text = k.text AND {formulations}.vector IS NULL"
        )
        restored = cursor.rowcount
        cursor.execute(f"DROP TABLE {TABLE}")
    return restored
