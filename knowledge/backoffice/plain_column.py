"""A list cell for text that may hold answer markup (global sentences, answers): read as plain text, tags
stripped and entities decoded, cut to one line, so the list shows neither raw tags nor rendered HTML."""

from django.utils.text import Truncator

from knowledge.plain_text import answer_text

CELL_CHARS = 120


def plain_cell(markup: str | None, length: int = CELL_CHARS) -> str:
    """`<b>Clara</b> vous r&eacute;pond` → 'Clara vous répond' (escaped again by the admin as any text)."""
    return Truncator(answer_text(markup or "")).chars(length) or "—"
