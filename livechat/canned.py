"""Canned answers for operators: the bot's published predefined answers (knowledge items of kind
"predefined", never matched from a visitor's question), searched by label, text or theme, in the
dialog's language, the dialog's space first."""

import unicodedata

from django.utils.html import strip_tags

from knowledge.models import Answer, KnowledgeItem
from knowledge.snapshot import Snapshot, snapshot_for

from .models import LivechatRequest

LIMIT = 20
SEARCH_MAX = 100


def search(request: LivechatRequest, text: str) -> list[dict]:
    """Up to LIMIT predefined answers of the dialog's bot and language whose label, answer or theme (tag)
    contains `text` (without regard to case or accents; all of them when it is empty), in knowledge order."""
    dialog = request.dialog
    snapshot = snapshot_for(dialog.bot)
    space_id = snapshot.space_id(dialog.space) or snapshot.default_space_id
    # Read once per knowledge version: any edit of an answer or an item makes a new snapshot.
    entries = snapshot.memo(
        ("canned", dialog.language, space_id), lambda: _entries(snapshot, dialog.language, space_id)
    )
    needle = fold(text.strip()[:SEARCH_MAX])
    found = [answer for key, answer in entries if needle in key]
    return found[:LIMIT]


def _entries(snapshot: Snapshot, language: str, space_id: int) -> list[tuple[str, dict]]:
    """One query: (search key, canned answer) for each published predefined answer, in knowledge order."""
    answers = (
        Answer.objects.filter(
            item__bot_id=snapshot.bot_id,
            item__kind=KnowledgeItem.Kind.PREDEFINED,
            item__status=KnowledgeItem.Status.PUBLISHED,
            language=language,
            space_id__in={space_id, snapshot.default_space_id},
        )
        .select_related("item")
        .order_by("item__position", "item_id")
    )
    chosen: dict[int, Answer] = {}
    for answer in answers:
        # The dialog's own space wins over the default space's answer.
        if answer.item_id not in chosen or answer.space_id == space_id:
            chosen[answer.item_id] = answer
    entries = []
    for answer in chosen.values():
        canned = {
            "id": answer.item_id,
            "label": answer.item.label,
            "theme": snapshot.tag_path(answer.item.tag_id),
            "text": strip_tags(answer.text).strip(),
        }
        entries.append((fold(" ".join((canned["label"], canned["theme"], canned["text"]))), canned))
    return entries


def fold(text: str) -> str:
    """Lower case without accents: « Clôture » and « cloture » are the same search."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))
