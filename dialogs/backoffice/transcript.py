"""A dialog as the visitor saw it, in bubbles for the dialogs page: the visitor's words (and files), the
bot's answers (sanitised HTML) with the item that gave each, the rewordings offered and the one clicked,
feedback with its reason and comment, operators' messages and live chat's notices, staff notes. Five queries
at most."""

import json
from dataclasses import dataclass, field
from datetime import datetime

from django.urls import reverse

from knowledge.answer_html import clean
from knowledge.models import GlobalSentence, KnowledgeItem
from knowledge.plain_text import answer_text
from knowledge.sentences import DEFAULTS

from .. import clicks
from ..models import Dialog, Interaction
from ..notes import DialogNote
from . import words

REASON_KINDS = {
    0: GlobalSentence.Kind.FEEDBACK_CHOICE0,
    1: GlobalSentence.Kind.FEEDBACK_CHOICE1,
    2: GlobalSentence.Kind.FEEDBACK_CHOICE2,
}
# Answers that are live chat's notices to the visitor, shown as a line across the transcript.
NOTICE_PREFIXES = ("OP", "NA", "GBLiveChat", "DMLiveChat")


@dataclass
class ItemLink:
    id: int
    label: str
    url: str  # "" for an item no longer in the knowledge base
    clicked: bool = False


@dataclass
class Bubble:
    side: str  # "visitor", "bot", "operator", "notice" or "note" (staff only)
    at: datetime
    text: str = ""  # plain text, escaped by the template
    html: str = ""  # an answer's HTML, already sanitised
    kind: str = ""  # what the answer was, in words
    tone: str = ""  # "direct", "reword", "missed" or "": the kind's colour
    how: str = ""  # how the visitor's input came (a click…), in words
    author: str = ""  # the operator's name
    item: ItemLink | None = None
    offered: list[ItemLink] = field(default_factory=list)
    feedback: str = ""
    feedback_value: str = ""
    feedback_reason: str = ""
    feedback_comment: str = ""
    upload: dict | None = None
    survey: list[tuple[str, str]] = field(default_factory=list)  # a survey's answers: (field, value)


def bubbles(dialog: Dialog) -> list[Bubble]:
    rows = list(Interaction.objects.filter(dialog=dialog).order_by("created_at", "id"))
    items = _item_labels(dialog, rows)
    reasons = _feedback_reasons(dialog, rows)
    clicked = _clicked_rewordings(rows)
    result = []
    for index, row in enumerate(rows):
        visitor = _visitor_bubble(row)
        if visitor is not None:
            result.append(visitor)
        answer = _answer_bubble(row, items, clicked.get(index), reasons)
        if answer is not None:
            result.append(answer)
    between = _survey_bubbles(dialog) + note_bubbles(dialog)
    # Surveys and staff notes come between two talks: they take their place in time (the sort keeps equal
    # times' order).
    return sorted(result + between, key=lambda bubble: bubble.at) if between else result


def note_bubbles(dialog: Dialog) -> list[Bubble]:
    """Staff notes (dialogs.notes): written in the console, shown to staff only, marked as notes."""
    return [
        Bubble("note", note.created_at, text=note.text, kind=str(words.note_kind(note)), author=note.author_name)
        for note in DialogNote.objects.filter(dialog=dialog).order_by("created_at", "id")
    ]


def _survey_bubbles(dialog: Dialog) -> list[Bubble]:
    answers = dialog.survey_answers.select_related("survey").prefetch_related("values").order_by("created_at")
    return [
        Bubble(
            "visitor",
            answer.created_at,
            text=str(words.SURVEY_SENT) % {"title": answer.survey.title},
            survey=[(value.label, value.value) for value in answer.values.all()],
        )
        for answer in answers
    ]


def variables(dialog: Dialog) -> list[tuple[str, str]]:
    values = dialog.variables if isinstance(dialog.variables, dict) else {}
    return [(name, value if isinstance(value, str) else json.dumps(value)) for name, value in sorted(values.items())]


def _visitor_bubble(row: Interaction) -> Bubble | None:
    payload = row.payload or {}
    if payload.get("upload"):
        return Bubble("visitor", row.created_at, upload=payload["upload"])
    text = row.user_input.strip()
    special = words.special_input(text)
    if special is not None:
        return Bubble("notice", row.created_at, text=str(special))
    if row.origin in clicks.UNSHOWN:
        # The chatbox draws no bubble for a followed link: the page's address is what was sent.
        return Bubble("notice", row.created_at, text=f"{words.origin(row.origin)}: {text}")
    if not text:
        return None
    return Bubble("visitor", row.created_at, text=text, how=str(words.origin(row.origin)))


def _answer_bubble(row: Interaction, items: dict, clicked_id: int | None, reasons: dict) -> Bubble | None:
    answer = clean(row.answer).strip()
    if row.human:
        author = (row.payload or {}).get("fromDetail") or ""
        return Bubble(
            "operator", row.created_at, html=answer, author=author, kind=str(words.answer_kind(row.type_response))
        )
    if row.type_response.startswith(NOTICE_PREFIXES) or row.type_response == "LCVisitorMessage":
        if not answer:
            return None
        kind = words.answer_kind(row.type_response)
        return Bubble("notice", row.created_at, text=f"{kind}: {answer_text(answer)}")
    if not answer:
        return None
    bubble = Bubble("bot", row.created_at, html=answer, kind=str(words.answer_kind(row.type_response)))
    bubble.tone = _tone(row.type_response)
    if row.user_input.strip() == "#welcome#":
        bubble.kind, bubble.tone = str(words.WELCOME), ""
    answered = row.answered_item_id
    if answered in items:
        bubble.item = _link(answered, items, title=row.answered_title)
    elif answered:
        # Deleted or replaced since: what the interaction kept of it, without a link.
        bubble.item = ItemLink(answered, row.answered_title or f"#{answered}", "")
    offered = [int(value) for value in (row.reworded_items or []) if str(value).isdigit()]
    bubble.offered = [_link(item_id, items, clicked=item_id == clicked_id) for item_id in offered if item_id in items]
    if row.feedback:
        bubble.feedback_value = row.feedback
        bubble.feedback = str(words.FEEDBACK.get(row.feedback, row.feedback))
        bubble.feedback_reason = reasons.get(row.feedback_choice_key, "") if row.feedback_choice_key is not None else ""
        bubble.feedback_comment = row.feedback_comment
    return bubble


def _tone(type_response: str) -> str:
    if type_response.startswith("RW"):
        return "reword"
    if type_response in ("GBMisunderstoodQuestion", "GBTooManyMisunderstoodQuestions"):
        return "missed"
    if type_response.startswith("DM"):
        return "direct"
    return ""


def _link(item_id: int, items: dict, clicked: bool = False, title: str = "") -> ItemLink:
    url = reverse("admin:knowledge_knowledgeitem_change", args=[item_id])
    return ItemLink(item_id, items[item_id] or title or f"#{item_id}", url, clicked)


def _item_labels(dialog: Dialog, rows: list[Interaction]) -> dict[int, str]:
    ids = {row.answered_item_id for row in rows if row.answered_item_id}
    for row in rows:
        ids.update(int(value) for value in (row.reworded_items or []) if str(value).isdigit())
    if not ids:
        return {}
    return dict(KnowledgeItem.objects.filter(bot_id=dialog.bot_id, id__in=ids).values_list("id", "label"))


def _clicked_rewordings(rows: list[Interaction]) -> dict[int, int]:
    """For an answer that offered rewordings (by its index), the item the visitor then clicked."""
    clicked = {}
    for index, row in enumerate(rows):
        offered = {int(value) for value in (row.reworded_items or []) if str(value).isdigit()}
        if not offered:
            continue
        following = rows[index + 1] if index + 1 < len(rows) else None
        # The chatbox sends a clicked rewording as the next talk, marked reword_auto.
        if following is not None and following.origin == clicks.REWORD and following.answered_item_id in offered:
            clicked[index] = following.answered_item_id
    return clicked


def _feedback_reasons(dialog: Dialog, rows: list[Interaction]) -> dict[int, str]:
    """The reasons the visitor could choose after a thumbs down, in the dialog's language."""
    if not any(row.feedback_choice_key is not None for row in rows):
        return {}
    stored = dict(
        GlobalSentence.objects.filter(
            bot_id=dialog.bot_id, language=dialog.language, kind__in=REASON_KINDS.values()
        ).values_list("kind", "text")
    )
    defaults = DEFAULTS.get(dialog.language, DEFAULTS["en"])
    return {key: stored.get(kind) or defaults.get(kind, "") for key, kind in REASON_KINDS.items()}
