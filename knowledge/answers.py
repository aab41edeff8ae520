"""Items' answers for a language and a consultation space, with the default-space fallback, and
their branches chosen by context conditions."""

from dataclasses import dataclass

from .models import Answer, AnswerBranch


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


@dataclass(frozen=True)
class Branch:
    """An answer branch as the talk reads it (knowledge/branches.py): its conditions, text and the
    variables it sets."""

    conditions: tuple
    text: str
    set_variables: tuple  # (name, value) pairs: the snapshot's values are never modified


def branches_of(bot) -> dict[tuple[int, str, int], tuple[Branch, ...]]:
    """One query: the bot's answer branches by (item id, language, space id), in priority order."""
    found: dict[tuple[int, str, int], list[Branch]] = {}
    rows = (
        AnswerBranch.objects.filter(item__bot=bot)
        .order_by("item_id", "language", "space_id", "position", "id")
        .values_list("item_id", "language", "space_id", "conditions", "text", "set_variables")
    )
    for item_id, language, space_id, conditions, text, set_variables in rows:
        found.setdefault((item_id, language, space_id), []).append(
            Branch(
                conditions=tuple(conditions) if isinstance(conditions, list) else (),
                text=text,
                set_variables=tuple(set_variables.items()) if isinstance(set_variables, dict) else (),
            )
        )
    return {key: tuple(branches) for key, branches in found.items()}
