"""Answer branches in a talk: the item's answer text chosen by context conditions on the dialog's
variables, and the variables the chosen answer sets."""

from knowledge.conditions import first_holding


def answer_text(snapshot, dialog, item_id: int, answer) -> str:
    """The text of the first branch of `answer` (same item, language and space) whose conditions hold on
    the dialog's variables, else the answer's own text (also for a branch without text: one that only
    sets variables). The chosen branch's variables are set on the dialog (the talk stores what changed)."""
    branches = snapshot.branches.get((item_id, answer.language, answer.space_id))
    if not branches:
        return answer.text
    branch = first_holding(branches, dialog.variables or {})
    if branch is None:
        return answer.text
    if branch.set_variables:
        dialog.variables = {**(dialog.variables or {}), **dict(branch.set_variables)}
    return branch.text or answer.text
