"""Knowledge items are locked before they are deleted, so that no talk links an interaction to one of
them in between (issue 28): the talk's statement looks the item up with a key-share lock
(dialogs/statements.py), which waits for this lock and then reads NULL, and every talk that linked an
item before holds its lock until its commit, so the deletion's unlinking then sees it.

Without it, on PostgreSQL, a talk committing between a deletion's unlinking (SET NULL) and its DELETE
made the deletion fail at its commit (the foreign key checked there). SQLite has one writer at a time
(BEGIN IMMEDIATE): nothing to lock there."""

from django.db import connections, router
from django.db.models.signals import pre_delete
from django.dispatch import receiver

from bots.models import Bot

from .models import KnowledgeItem


def lock_for_deletion(items) -> None:
    """Lock these items (a queryset) for the rest of the transaction, in one statement."""
    alias = router.db_for_write(KnowledgeItem)
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return
    sql, params = items.order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        # FOR UPDATE: the one row lock a talk's key-share lock waits for.
        cursor.execute(f"SELECT COUNT(*) FROM ({sql} FOR UPDATE) AS locked", params)


@receiver(pre_delete, sender=KnowledgeItem)
def item_leaving(sender, instance, origin=None, **kwargs):
    """Every deletion through the ORM (the back office's, a cascade from a parent item) locks the item
    before Django unlinks what refers to it. A bot deleted takes its dialogs with it: nothing to keep."""
    if isinstance(origin, Bot):
        return
    lock_for_deletion(KnowledgeItem.objects.filter(pk=instance.pk))
