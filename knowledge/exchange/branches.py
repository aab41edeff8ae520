"""Answer branches in the knowledge-base exchange: read with the exported answers, written as rows on
import (knowledge/branches.py holds the model, knowledge/xml/ the elements)."""

from ..models import AnswerBranch
from ..xml import records
from .rows import RowSink, json_value


def add_branches(answers: dict[int, list[records.Answer]], item_ids: list[int], space_names: dict[int, str]):
    """Give each exported answer its branches, in priority order (one query per batch of items)."""
    found: dict[tuple[int, str, str], list[records.AnswerBranch]] = {}
    rows = (
        AnswerBranch.objects.filter(item_id__in=item_ids)
        .order_by("item_id", "language", "space_id", "position", "id")
        .values_list("item_id", "language", "space_id", "conditions", "text", "set_variables")
    )
    for item_id, language, space_id, conditions, text, set_variables in rows:
        found.setdefault((item_id, language, space_names.get(space_id, "")), []).append(
            records.AnswerBranch(
                conditions=[c for c in conditions if isinstance(c, dict)] if isinstance(conditions, list) else [],
                text=text,
                set_variables={str(k): str(v) for k, v in set_variables.items()}
                if isinstance(set_variables, dict)
                else {},
            )
        )
    if not found:
        return
    for item_id, item_answers in answers.items():
        for answer in item_answers:
            answer.branches = found.get((item_id, answer.language, answer.space), [])


class BranchRows:
    """The imported answers' branches, written in batches after their items."""

    def __init__(self):
        self.sink = RowSink(
            AnswerBranch, ["item", "language", "space", "position", "conditions", "text", "set_variables"]
        )

    def add(self, item_id: int, answer: records.Answer, space_id: int):
        for position, branch in enumerate(answer.branches):
            self.sink.add(
                (
                    item_id,
                    answer.language,
                    space_id,
                    position,
                    json_value(branch.conditions),
                    branch.text,
                    json_value(branch.set_variables),
                )
            )
