"""What the import / export page says: counts per kind in words, and why a file was refused."""

from django.utils.translation import gettext as _

from knowledge.models import KnowledgeItem
from knowledge.xml import errors

# The importer's refusal codes (knowledge/xml/errors.py, uploads.py, deleting.py) in a person's words.
REFUSALS = {
    "TOO_LARGE": lambda: _("The file is larger than this server accepts."),
    "MISSING_FIELD": lambda: _("Choose a file to import."),
    "EMPTY_FILE": lambda: _("The file is empty."),
    "SEVERAL_FILES": lambda: _("Send one file at a time."),
    "UNREADABLE": lambda: _("The upload could not be read; send the file again."),
    errors.MALFORMED: lambda: _("The file is not well-formed XML."),
    errors.FORBIDDEN: lambda: _("The file holds a DOCTYPE (or an entity), which is never accepted."),
    errors.SCHEMA: lambda: _("The file does not follow the knowledge base format (its XML Schema)."),
    errors.DANGLING: lambda: _("The file refers to something it does not define."),
    errors.DUPLICATE: lambda: _("The file defines the same thing twice."),
    errors.INVALID_VALUE: lambda: _("The file holds a value that is not valid."),
    errors.TOO_DEEP: lambda: _("The file nests its trees deeper than allowed."),
    errors.TOO_BIG: lambda: _("One element of the file is larger than allowed."),
    errors.WRONG_DOCUMENT: lambda: _("This is not a knowledge base file (a gallery or bot data file?)."),
    "STILL_REFERENCED": lambda: _("Other data still refers to knowledge this file would remove."),
}


def refusal_text(code: str) -> str:
    found = REFUSALS.get(code)
    return found() if found else _("The file was refused.")


def size_text(max_bytes: int) -> str:
    megabytes = max_bytes / (1024 * 1024)
    if megabytes >= 1:
        text = _("%(size)s MB") % {"size": f"{megabytes:g}"}
    else:
        text = _("%(size)s KB") % {"size": f"{max_bytes / 1024:g}"}
    return text.replace(" ", "\u00a0")  # the number and its unit on one line


def kind_labels() -> dict:
    return {
        KnowledgeItem.Kind.QUESTION: _("answers to a question"),
        KnowledgeItem.Kind.COMPLEMENTARY: _("complementary answers"),
        KnowledgeItem.Kind.PREDEFINED: _("predefined answers"),
        KnowledgeItem.Kind.EVENT: _("event-triggered items"),
        KnowledgeItem.Kind.SLOT: _("slots"),
    }


def count_list(counts: dict) -> str:
    """The main counts on one line (knowledge items, formulations…), as the delete's message says them."""
    return ", ".join(
        _("%(label)s: %(number)s") % {"label": label, "number": number}
        for label, number, detail in count_rows(counts)
        if not detail
    )


def count_rows(counts: dict) -> list[tuple[str, int, bool]]:
    """(label, number, is a detail row) for a report's counts (import's `imported`, delete's `deleted`),
    the knowledge items first with their kinds under them; parts the report does not hold are left out."""
    items = counts.get("knowledgeItems", {})
    rows = [(_("Knowledge items"), items.get("total", 0), False)]
    rows += [(label, items[kind], True) for kind, label in kind_labels().items() if items.get(kind)]
    for key, label in (
        ("formulations", _("Formulations")),
        ("answers", _("Answers")),
        ("tags", _("Tags")),
        ("matchingGroups", _("Matching groups")),
        ("globalSentences", _("Global sentences")),
        ("galleryImages", _("Gallery images")),
        ("languages", _("Languages")),
        ("spaces", _("Spaces")),
    ):
        if key in counts:
            rows.append((label, counts[key], False))
    return rows
