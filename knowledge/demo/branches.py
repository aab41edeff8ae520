"""The demo bot's answer branches (context conditions): content.py's "branches" of an item, per language,
as (conditions, text, variables set) in priority order, on the default space's answer."""

from ..models import AnswerBranch


def seed_branches(item, spec: dict, space) -> None:
    rows = []
    for language, branches in spec.get("branches", {}).items():
        for position, (conditions, text, *sets) in enumerate(branches):
            rows.append(
                AnswerBranch(
                    item=item,
                    language=language,
                    space=space,
                    position=position,
                    conditions=[{"variable": v, "operator": o, "value": x} for v, o, x in conditions],
                    text=text,
                    set_variables=sets[0] if sets else {},
                )
            )
    # No signal (bulk): the seed bumps the knowledge version once at its end.
    AnswerBranch.objects.bulk_create(rows)
