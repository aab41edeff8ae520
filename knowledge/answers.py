"""Items' answers for a language and a consultation space, with the default-space fallback."""

from .models import Answer


def answers_for(item_ids, language: str, space_id: int, default_space_id: int) -> dict[int, Answer]:
    """One query: each item's answer in the requested space if it has one, else the default space's."""
    found: dict[int, Answer] = {}
    # No ordering: the model's (by space name) would join the spaces table for nothing.
    rows = Answer.objects.filter(
        item_id__in=list(item_ids), language=language, space_id__in={space_id, default_space_id}
    ).order_by()
    for answer in rows:
        current = found.get(answer.item_id)
        if current is None or answer.space_id == space_id:
            found[answer.item_id] = answer
    return found
