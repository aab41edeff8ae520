"""Erase one visitor's data for good: their dialogs, and everything that hangs on them — interactions,
files (rows now, files on disk once committed), survey answers, live chat's requests and events, visits
and client errors of those dialogs, and rows that only point at a dialog (call-back requests), which
would otherwise outlive it with the visitor's phone number."""

from collections import Counter

from django.db import models, transaction

from ..models import ClientError, Dialog, GdprRequest, Visit
from .data import visitor_dialogs

BATCH_SIZE = 500


def erase(request: GdprRequest) -> Counter:
    """Delete the request's visitor's dialogs and what hangs on them; the counts per kind of row."""
    deleted = Counter()
    dialogs = visitor_dialogs(request).order_by("id")
    with transaction.atomic():
        while batch := list(dialogs.values_list("id", "uuid")[:BATCH_SIZE]):
            ids = [dialog_id for dialog_id, _ in batch]
            context_ids = [str(context_id) for _, context_id in batch]
            # Visits and client errors name their dialog by its context id, not by a foreign key.
            for model in (Visit, ClientError):
                _, counts = model.objects.filter(bot_id=request.bot_id, context_id__in=context_ids).delete()
                deleted.update(counts)
            for model, field in _rows_kept_unlinked():
                _, counts = model.objects.filter(**{f"{field}__in": ids}).delete()
                deleted.update(counts)
            # Django follows every cascading foreign key: interactions, uploads, surveys, live chat.
            _, counts = Dialog.objects.filter(id__in=ids).delete()
            deleted.update(counts)
    return Counter({label: count for label, count in deleted.items() if count})


def _rows_kept_unlinked():
    """Models whose link to a dialog is set to null when it goes (they would keep the visitor's data)."""
    # Hidden relations too: a link declared with related_name="+" (call-back requests) is one of them.
    for relation in Dialog._meta.get_fields(include_hidden=True):
        reverse_link = relation.auto_created and not relation.concrete and relation.one_to_many
        if reverse_link and getattr(relation, "on_delete", None) is models.SET_NULL:
            yield relation.related_model, relation.field.name
