"""What a person does with a group on the learning page: add an input as a formulation of an item, make a
new draft item of it, or ignore the group with a reason. Each checks what it is given and says what is
wrong in words (LearningError), never a 500."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from knowledge.learning.models import IgnoredGroup
from knowledge.matching import normalise
from knowledge.models import Formulation, KnowledgeItem

MAX_TEXT = 1000  # Formulation.text's length
MAX_GROUP_TEXTS = 500


class LearningError(ValueError):
    """A refused action, with the message shown to the person."""


def _text(value) -> str:
    text = " ".join(str(value or "").split())
    if not text:
        raise LearningError(_("The input is empty."))
    if len(text) > MAX_TEXT:
        raise LearningError(_("The input is longer than %(max)d characters.") % {"max": MAX_TEXT})
    return text


def _language(bot, value) -> str:
    language = str(value or "").strip()
    if language not in bot.language_codes():
        raise LearningError(_("The bot does not speak the language “%(language)s”.") % {"language": language[:20]})
    return language


def add_formulation(bot, item_id, text, language) -> Formulation:
    """`text` becomes a formulation of the bot's item `item_id` in `language` (after its others)."""
    text, language = _text(text), _language(bot, language)
    try:
        item = KnowledgeItem.objects.get(pk=int(item_id), bot=bot)
    except (TypeError, ValueError, KnowledgeItem.DoesNotExist):
        raise LearningError(_("Choose one of this bot's knowledge items.")) from None
    if not item.matchable:
        raise LearningError(_("“%(item)s” is not answered to questions: choose another item.") % {"item": item})
    key = normalise(text, language)
    for existing in item.formulations.filter(language=language).values_list("text", flat=True):
        if normalise(existing, language) == key:
            raise LearningError(_("“%(item)s” already has this formulation.") % {"item": item})
    last = item.formulations.aggregate(last=Max("position"))["last"]
    return Formulation.objects.create(item=item, language=language, text=text, position=(last or 0) + 1)


def answered_by(bot, text: str, language: str, item: KnowledgeItem):
    """What the bot does with `text` now, in its default space: ("direct", item id) when it answers it
    directly, else (outcome, the best ranked item id or None). A draft item is tried as qualification mode
    tries it (it answers once published). Builds the bot's new index now, as its next talk would."""
    from knowledge.snapshot import snapshot_for

    bot.refresh_from_db(fields=["knowledge_version"])
    snapshot = snapshot_for(bot)
    language = snapshot.language(language)
    allowed = snapshot.allowed_items(language, snapshot.default_space_id, item.status != KnowledgeItem.Status.PUBLISHED)
    result = snapshot.matcher(language).match(text, allowed=allowed)
    best = result.candidates[0].item_id if result.candidates else (result.ranked[0].item_id if result.ranked else None)
    return result.outcome, best


def new_item(bot, text, language) -> KnowledgeItem:
    """A draft question item whose label and first formulation are `text`: an editor writes its answer."""
    text, language = _text(text), _language(bot, language)
    with transaction.atomic():
        last = KnowledgeItem.objects.filter(bot=bot).aggregate(last=Max("position"))["last"]
        item = KnowledgeItem.objects.create(
            bot=bot,
            kind=KnowledgeItem.Kind.QUESTION,
            status=KnowledgeItem.Status.DRAFT,
            label=text[:300],
            position=(last or 0) + 1,
        )
        Formulation.objects.create(item=item, language=language, text=text, position=0)
    return item


def ignore(bot, user, label, texts, count, reason, language) -> IgnoredGroup:
    """Set the group's inputs aside, with why (required)."""
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise LearningError(_("Say why this group is ignored."))
    if len(reason) > 500:
        raise LearningError(_("The reason is longer than 500 characters."))
    language = _language(bot, language)
    label = _text(label)[:600]
    keys = []
    for text in list(texts or [])[:MAX_GROUP_TEXTS]:
        key = normalise(str(text)[:MAX_TEXT], language)
        if key and key not in keys:
            keys.append(key)
    if not keys:
        raise LearningError(_("The group has no input to ignore."))
    try:
        count = min(max(int(count), 0), 2**31 - 1)
    except (TypeError, ValueError):
        count = len(keys)
    return IgnoredGroup.objects.create(
        bot=bot, language=language, label=label, texts=keys, count=count, reason=reason, ignored_by=user
    )
