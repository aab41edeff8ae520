"""Private notes in the console: the operator holding a live dialog notes something for staff, a supervisor
whispers to that operator, a supervisor joins. Stored as the dialog's staff notes (dialogs.notes) and pushed
only to consoles: the holder's, the author's, and the supervisors' reading along. Never a visitor's event."""

from django.utils import timezone

from bots.servlet.errors import InvalidField, MissingField
from dialogs.notes import NOTE_MAX_CHARS, DialogNote

from . import delivery, watching
from .models import LivechatRequest

Kind = DialogNote.Kind


def clean_text(text) -> str:
    if text is not None and not isinstance(text, str):
        raise InvalidField("text", "text expected")
    text = (text or "").replace("\x00", "").strip()  # PostgreSQL stores no NUL character
    if not text:
        raise MissingField("text")
    if len(text) > NOTE_MAX_CHARS:
        raise InvalidField("text", f"at most {NOTE_MAX_CHARS} characters")
    return text


def line(note: DialogNote) -> dict:
    """A note as the console draws it: apart from the conversation, plain text, marked as staff-only."""
    return {
        "id": f"note-{note.pk}",
        "at": note.created_at.isoformat(),
        "from": "note",
        "kind": note.kind,
        "text": note.text,
        "operator": note.author_name,
        "operatorLogin": note.author.get_username() if note.author_id and note.author else "",
        "to": note.to_name,
    }


def lines_for(dialog_id: int) -> list[dict]:
    notes = DialogNote.objects.filter(dialog_id=dialog_id).select_related("author").order_by("created_at", "pk")
    return [line(note) for note in notes]


def merged(dialog_id: int, messages: list[dict]) -> list[dict]:
    """The dialog's lines with its notes in their place in time (a note after the lines of its instant)."""
    notes = lines_for(dialog_id)
    if not notes:
        return messages
    return sorted(messages + notes, key=lambda item: (item["at"] or "", item["from"] == "note"))


def record(dialog, author, kind: str, text: str = "", *, to_name: str = "", now=None) -> DialogNote:
    note = DialogNote.objects.create(
        dialog=dialog,
        kind=kind,
        author=author.user,
        author_name=author.name,
        to_name=to_name,
        text=text,
        created_at=now or timezone.now(),
    )
    note.author = author.user
    return note


def joined(operator, request: LivechatRequest) -> bool:
    """Whether this operator (a supervisor) joined the request's live dialog: they may write to its visitor."""
    return DialogNote.objects.filter(
        dialog_id=request.dialog_id, kind=Kind.JOINED, author_id=operator.user_id, created_at__gte=request.created_at
    ).exists()


def announce(request: LivechatRequest | None, author, note: DialogNote) -> dict:
    """Push the note to the consoles that follow the dialog, after commit; returns its line."""
    shown = line(note)
    if request is not None and request.status == LivechatRequest.Status.ASSIGNED:
        push = {"type": "message", "dialog": request.pk, "message": shown}
        delivery.to_operator(request.operator_id, push)
        if author.pk != request.operator_id:
            delivery.to_operator(author.pk, push)  # the author's other consoles
    watching.moved(note.dialog, shown)
    return shown
