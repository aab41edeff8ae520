"""Deleting a bot's knowledge in a few set-wise statements (per-row deletes with their signals would
take minutes on a large bot). Languages and spaces are the bot's configuration and stay.

Rows of other apps that point at the deleted knowledge are handled as their foreign key says
(SET_NULL: unlinked, CASCADE: deleted, PROTECT/RESTRICT: the deletion is refused), as Django's
own delete would.
"""

import time
from collections import Counter

from django.db import connection, models, transaction

from bots.models import bump_knowledge_version
from bots.servlet.errors import ServletError

from ..locks import lock_for_deletion
from ..models import Answer, AnswerBranch, Formulation, GalleryImage, GlobalSentence, KnowledgeItem, MatchingGroup, Tag
from .rows import quote, refresh_statistics

ComplementTag = KnowledgeItem.complement_tags.through
ComplementItem = KnowledgeItem.complement_items.through
KNOWLEDGE_MODELS = (
    KnowledgeItem,
    Formulation,
    Answer,
    ComplementTag,
    ComplementItem,
    Tag,
    MatchingGroup,
    GlobalSentence,
    AnswerBranch,
)
OWN_MODELS = frozenset((*KNOWLEDGE_MODELS, GalleryImage))


class StillReferenced(ServletError):
    status, code = 409, "STILL_REFERENCED"


def knowledge_counts(bot, *, gallery: bool) -> dict:
    """What the bot's knowledge base holds, in the words of the import and delete reports."""
    kinds = Counter(dict(KnowledgeItem.objects.filter(bot=bot).values_list("kind").annotate(n=models.Count("id"))))
    counts = {
        "tags": Tag.objects.filter(bot=bot).count(),
        "matchingGroups": MatchingGroup.objects.filter(bot=bot).count(),
        "knowledgeItems": {
            "total": sum(kinds.values()),
            **{kind.value: kinds.get(kind.value, 0) for kind in KnowledgeItem.Kind},
        },
        "formulations": Formulation.objects.filter(item__bot=bot).count(),
        "answers": Answer.objects.filter(item__bot=bot).count(),
        "globalSentences": GlobalSentence.objects.filter(bot=bot).count(),
    }
    if gallery:
        counts["galleryImages"] = GalleryImage.objects.filter(bot=bot).count()
    return counts


def delete_knowledge(bot, *, gallery: bool, returning_item_ids=None) -> None:
    """Delete the bot's tags, matching groups, knowledge items (formulations, answers) and global
    sentences, and its gallery when `gallery`. Call inside a transaction.

    `returning_item_ids`: items an import writes back under the same ids before the commit. Other
    apps' rows keep pointing at them (logged interactions stay counted in top knowledge); the
    foreign keys are checked at the commit, when the items are back.

    The items are locked first (knowledge/locks.py): a talk answering one of them meanwhile waits for the
    commit and keeps the item's id and title, its reference NULL."""
    items = KnowledgeItem.objects.filter(bot=bot)
    lock_for_deletion(items)
    if returning_item_ids is None:
        _release(KnowledgeItem, items)
    else:
        returning = set(returning_item_ids)
        leaving = [pk for pk in items.values_list("pk", flat=True).iterator() if pk not in returning]
        for start in range(0, len(leaving), 10_000):
            _release(KnowledgeItem, KnowledgeItem.objects.filter(pk__in=leaving[start : start + 10_000]))
    _release(Formulation, Formulation.objects.filter(item__bot=bot))
    _release(Answer, Answer.objects.filter(item__bot=bot))
    _release(Tag, Tag.objects.filter(bot=bot))
    _release(MatchingGroup, MatchingGroup.objects.filter(bot=bot))
    _release(GlobalSentence, GlobalSentence.objects.filter(bot=bot))
    item_table = quote(KnowledgeItem._meta.db_table)
    of_bot_items = f"IN (SELECT id FROM {item_table} WHERE bot_id = %s)"
    with connection.cursor() as cursor:
        for model, column in (
            (ComplementTag, "knowledgeitem_id"),
            (ComplementItem, "from_knowledgeitem_id"),
            (ComplementItem, "to_knowledgeitem_id"),
            (Formulation, "item_id"),
            (Answer, "item_id"),
            (AnswerBranch, "item_id"),
        ):
            cursor.execute(f"DELETE FROM {quote(model._meta.db_table)} WHERE {quote(column)} {of_bot_items}", [bot.pk])
        # Decision-tree parents and tags point at rows deleted in the same statement: the foreign
        # keys are deferred to the commit, where nothing points at them any more.
        for model in (KnowledgeItem, Tag, MatchingGroup, GlobalSentence):
            cursor.execute(f"DELETE FROM {quote(model._meta.db_table)} WHERE bot_id = %s", [bot.pk])
    if gallery:
        delete_gallery(bot)


def delete_gallery(bot) -> int:
    images = GalleryImage.objects.filter(bot=bot)
    _release(GalleryImage, images)
    count, _ = images.delete()
    return count


def _release(model, queryset):
    """Apply what other apps' foreign keys to `model` ask for when `queryset`'s rows go."""
    for relation in model._meta.get_fields(include_hidden=True):
        if not (relation.auto_created and not relation.concrete) or relation.many_to_many:
            continue
        related = relation.related_model
        if related in OWN_MODELS:
            continue
        field = relation.field
        pointing = related._base_manager.filter(**{f"{field.name}__in": queryset})
        on_delete = relation.on_delete
        if on_delete in (models.PROTECT, models.RESTRICT):
            if pointing.exists():
                raise StillReferenced(
                    f"{related._meta.verbose_name_plural.capitalize()} still refer to this bot's "
                    f"{model._meta.verbose_name_plural}; remove them first.",
                )
        elif on_delete is models.CASCADE:
            pointing.delete()
        elif on_delete is models.SET_NULL or field.null:
            pointing.update(**{field.name: None})
        elif on_delete is not models.DO_NOTHING:
            pointing.delete()


def delete_knowledge_base(bot, *, gallery: bool) -> dict:
    """The delete servlet's work: delete the bot's knowledge (and gallery) in one transaction, bump
    the knowledge version once, and say what was deleted."""
    started = time.perf_counter()
    with transaction.atomic():
        counts = knowledge_counts(bot, gallery=gallery)
        delete_knowledge(bot, gallery=gallery)
        bump_knowledge_version(bot.pk)
    refresh_statistics()
    return {"botUUID": str(bot.uuid), "deleted": counts, "durationMs": round((time.perf_counter() - started) * 1000)}
