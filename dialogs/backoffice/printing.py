"""A dialog's printable transcript for staff (from its page in the back office): every exchange as the
visitor's own print shows it, with the staff notes in their place, marked as notes. The visitor's print
(/servlet/history) never has them."""

from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from ..notes import DialogNote
from ..transcript.page import Line, lines, secured
from . import words


def staff_transcript(request, dialog):
    shown = lines(dialog, _("Visitor"), dialog.bot.name)
    notes = [
        Line("note", f"{words.note_kind(note)} · {note.author_name}", note.created_at, text=note.text)
        for note in DialogNote.objects.filter(dialog=dialog).order_by("created_at", "id")
    ]
    context = {
        "dialog": dialog,
        "bot_name": dialog.bot.name,
        # A note after the lines of its instant (the sort keeps each list's order).
        "lines": sorted(shown + notes, key=lambda line: line.at) if notes else shown,
        "notes": len(notes),
        "printed_at": timezone.localtime(),
    }
    return secured(render(request, "admin/dialogs/dialog/print.html", context))
