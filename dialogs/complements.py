"""Complementary answers at talk time: which of those targeting the answered item apply in this dialog
(their conditions on its variables, their activation frequency) and the answer text they make.

The rules come from the knowledge snapshot (no query). Only a complement with a limited frequency
costs statements, on the talks it targets: one read of what the dialog remembers of it, and one
upsert when it is shown (ComplementActivation).
"""

from knowledge.conditions import holds
from knowledge.models import KnowledgeItem
from knowledge.snapshot import ComplementRule, Snapshot

from . import statements
from .activations import ComplementActivation
from .models import Dialog

Frequency = KnowledgeItem.Frequency
Position = KnowledgeItem.Position
# Between the complements' texts and the answer: the chatbox shows each part as its own bubble.
SEPARATOR = "<hr/>"


def add_to(snapshot: Snapshot, dialog: Dialog, item_id: int, space_id: int, text: str) -> tuple[str, dict]:
    """The answer `text` of `item_id` with the complements that apply now, and those of them whose
    frequency is limited, with the times each was shown before (for `record`): (text, {id: times})."""
    rules, times = applicable(snapshot, dialog, item_id, space_id)
    if not rules:
        return text, {}
    answers = snapshot.answers([rule.id for rule in rules], dialog.language, space_id)
    rules = [rule for rule in rules if rule.id in answers]
    # The first "instead" complement replaces the answer; the others of that position are not used.
    instead = next((rule for rule in rules if rule.position == Position.INSTEAD), None)
    shown = [rule for rule in rules if rule.position != Position.INSTEAD or rule is instead]
    before = [answers[rule.id].text for rule in shown if rule.position == Position.BEFORE]
    after = [answers[rule.id].text for rule in shown if rule.position == Position.AFTER]
    middle = answers[instead.id].text if instead else text
    limited = {rule.id: times.get(rule.id, 0) for rule in shown if rule.frequency != Frequency.ALWAYS}
    return SEPARATOR.join([*before, middle, *after]), limited


def applicable(snapshot: Snapshot, dialog: Dialog, item_id: int, space_id: int):
    """The complements targeting the item whose conditions hold on the dialog's variables and whose
    frequency lets them be used now, and how many times the dialog showed each limited one:
    ([ComplementRule], {id: times})."""
    rules = snapshot.complements_for(item_id, dialog.language, space_id, dialog.qualification_mode)
    if not rules:
        return [], {}
    variables = dialog.variables or {}
    rules = [rule for rule in rules if not rule.conditions or holds(list(rule.conditions), variables)]
    limited = [rule.id for rule in rules if rule.frequency != Frequency.ALWAYS]
    if not limited or dialog.pk is None:
        return rules, {}  # a dialog not stored yet has shown nothing
    remembered = statements.remembered(dialog.pk, limited)
    rules = [
        rule for rule in rules if rule.frequency == Frequency.ALWAYS or due(rule, *remembered.get(rule.id, (0, None)))
    ]
    return rules, {complement_id: times for complement_id, (times, _) in remembered.items()}


def due(rule: ComplementRule, times: int, since: int | None) -> bool:
    """Whether a complement shown `times` times in the dialog, `since` interactions ago (None: never
    shown), may be used again now."""
    if times == 0 or since is None:
        return True
    if rule.frequency == Frequency.ONCE_PER_DIALOG:
        return False
    if rule.frequency == Frequency.N_PER_DIALOG:
        return times < rule.n
    if rule.frequency == Frequency.EVERY_N_INTERACTIONS:
        # Shown at interaction k: used again at k + N, when the N - 1 between are stored.
        return since + 1 >= rule.n
    return True


def record(dialog: Dialog, shown: dict[int, int], now) -> None:
    """One statement: remember the limited complements this talk showed ({id: times shown before}),
    inside the talk's transaction once the dialog is stored."""
    ComplementActivation.objects.bulk_create(
        [
            ComplementActivation(dialog_id=dialog.pk, complement_id=cid, times=times + 1, last_shown_at=now)
            for cid, times in shown.items()
        ],
        update_conflicts=True,
        unique_fields=["dialog", "complement_id"],
        update_fields=["times", "last_shown_at"],
    )
