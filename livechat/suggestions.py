"""Answers suggested to the operator: for the visitor's last message of a live dialog, the bot's best
knowledge answers (the talk's own matcher, in the dialog's language and space), as plain text the console
inserts and the operator edits. Nothing is stored by suggesting (no visitor talk); what a sent message
says of the suggestion it came from, and of the question it answers, goes with the operator's interaction."""

import threading
from collections import OrderedDict
from types import SimpleNamespace

from bots.servlet.errors import InvalidField
from dialogs.branches import answer_text
from dialogs.handover import Code
from dialogs.models import Dialog, Interaction
from dialogs.rendering import substitute_variables
from knowledge.models import KnowledgeItem
from knowledge.snapshot import Snapshot, snapshot_for

from .answer_text import plain_text, same_text
from .models import LivechatRequest

SHOWN = 3
# Ranked before the answers are read: items that hand over to a human, or have no answer here, are left out.
RANKED = 8
QUESTION_MAX_CHARS = 300
# The rankings of recent messages, per process: a console that opens the dialog again, or a colleague's,
# does not run the matcher again. Keyed by the knowledge version, so an edit is seen at once.
RANKINGS_KEPT = 512
_rankings: OrderedDict = OrderedDict()
_rankings_lock = threading.Lock()


def for_request(request: LivechatRequest) -> dict:
    """The console's "suggestions" answer for a dialog: the message they are for and up to SHOWN answers."""
    dialog = request.dialog
    question = last_visitor_message(dialog.pk)
    found = suggest(dialog, question.user_input) if question is not None else []
    return {
        "type": "suggestions",
        "dialog": request.pk,
        "for": question.pk if question is not None else None,
        "question": question.user_input[:QUESTION_MAX_CHARS] if question is not None else "",
        "suggestions": found,
    }


def last_visitor_message(dialog_id: int) -> Interaction | None:
    return (
        Interaction.objects.filter(dialog_id=dialog_id)
        .exclude(user_input="")
        .order_by("-created_at", "-pk")
        .only("pk", "user_input")
        .first()
    )


def suggest(dialog: Dialog, text: str) -> list[dict]:
    """The bot's best answers to `text` where the dialog stands: the candidates the talk would answer with
    or offer as rewordings (the matcher's own thresholds), best first, each with its answer as plain text."""
    snapshot = snapshot_for(dialog.bot)
    language, space_id = where(snapshot, dialog)
    ranked = _ranking(snapshot, language, space_id, dialog.qualification_mode, text)
    found = []
    for item_id, score, formulation, label in ranked:
        # Per item: the snapshot reads each item's answer once per knowledge version.
        answer = snapshot.answers([item_id], language, space_id).get(item_id)
        if answer is None or answer.livechat:
            continue  # nothing to say here, or an item whose answer is "let me hand you over"
        written = _answer(snapshot, dialog, item_id, answer)
        if written:
            found.append({"item": item_id, "label": label, "score": score, "formulation": formulation, "text": written})
        if len(found) == SHOWN:
            break
    return found


def where(snapshot: Snapshot, dialog: Dialog) -> tuple[str, int]:
    space_id = snapshot.space_id(dialog.space)
    return snapshot.language(dialog.language), snapshot.default_space_id if space_id is None else space_id


def _ranking(snapshot: Snapshot, language: str, space_id: int, qualification: bool, text: str) -> list[tuple]:
    """(item id, score, formulation, label) of the candidates within the matcher's reach of the best, cached."""
    key = (snapshot.bot_id, snapshot.version, language, space_id, qualification, text)
    with _rankings_lock:
        if key in _rankings:
            _rankings.move_to_end(key)
            return _rankings[key]
    matcher = snapshot.matcher(language)
    allowed = snapshot.allowed_items(language, space_id, qualification)
    candidates = matcher.rank(text, allowed=allowed, k=RANKED) if allowed else []
    found = []
    if candidates:
        thresholds = matcher.thresholds
        # The talk's own bar: what it would answer with or offer as a rewording (matching/decide.py).
        floor = max(thresholds.reword, candidates[0].score - thresholds.window)
        kept = [c for c in candidates if c.score >= floor]
        labels = dict(KnowledgeItem.objects.filter(pk__in=[c.item_id for c in kept]).values_list("pk", "label"))
        found = [(c.item_id, c.score, c.formulation_text, labels.get(c.item_id) or c.formulation_text) for c in kept]
    with _rankings_lock:
        _rankings[key] = found
        while len(_rankings) > RANKINGS_KEPT:
            _rankings.popitem(last=False)
    return found


def _answer(snapshot: Snapshot, dialog: Dialog, item_id: int, answer) -> str:
    """The answer's text as the talk would give it to this visitor (its branch by the dialog's variables,
    the variables filled in), in plain text. The dialog itself is left as it is."""
    variables = dict(dialog.variables or {})
    reading = SimpleNamespace(variables=variables)  # a branch that sets variables sets them here only
    return plain_text(substitute_variables(answer_text(snapshot, reading, item_id, answer), reading.variables))


def used(dialog: Dialog, suggestion, text: str) -> dict:
    """What an operator's message records of the suggestion it came from: the item, its label and whether
    the operator changed the suggested text. A suggestion that is not an item of the dialog's bot is refused."""
    try:
        item_id = int(suggestion)
    except (TypeError, ValueError):
        raise InvalidField("suggestion", "the id of the suggested knowledge item") from None
    label = KnowledgeItem.objects.filter(pk=item_id, bot_id=dialog.bot_id).values_list("label", flat=True).first()
    if label is None:
        raise InvalidField("suggestion", f"no knowledge item {item_id} in this dialog's bot")
    snapshot = snapshot_for(dialog.bot)
    language, space_id = where(snapshot, dialog)
    answer = snapshot.answers([item_id], language, space_id).get(item_id)
    suggested = _answer(snapshot, dialog, item_id, answer) if answer is not None else ""
    return {"item": item_id, "label": label, "edited": not same_text(text, suggested)}


def question_answered(dialog_id: int) -> int | None:
    """The visitor's message an operator's message now answers: the dialog's last message to the operator,
    unless an operator has written since (a second message answers nothing new)."""
    last = (
        Interaction.objects.filter(dialog_id=dialog_id, type_response__in=(Code.VISITOR_MESSAGE, Code.OPERATOR_ANSWER))
        .order_by("-created_at", "-pk")
        .values_list("pk", "type_response")
        .first()
    )
    if last is None or last[1] != Code.VISITOR_MESSAGE:
        return None
    return last[0]


def noted(dialog: Dialog, suggestion, text: str) -> dict:
    """What an operator's message keeps for learning (dialogs/learning/operators.py): the visitor's message
    it answers ("question") and the suggestion it came from ("suggestion"), when there are."""
    found = {}
    question = question_answered(dialog.pk)
    if question is not None:
        found["question"] = question
    if suggestion not in (None, ""):
        found["suggestion"] = used(dialog, suggestion, text)
    return found
