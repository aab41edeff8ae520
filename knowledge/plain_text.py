"""An answer's HTML as one line of text (mails, the dialogs page's notices, the GDPR export): a line break, a
rule or the end of a block becomes a space before the tags go, since strip_tags alone glued two sentences
joined by <br> ("… un conseiller.<br>Tous nos conseillers …" read "conseiller.Tous"); entities are read and
blank runs made one space."""

import html
import re

from django.utils.html import strip_tags

# Where the browser would break the line: <br>, <hr>, and the end (or start) of a block.
BREAKS = re.compile(
    r"<\s*(?:br|hr)\b[^>]*>|<\s*/?\s*(?:p|div|li|ul|ol|tr|td|th|table|h[1-6]|blockquote|section|article)\b[^>]*>",
    re.IGNORECASE,
)


def answer_text(answer_html: str) -> str:
    spaced = BREAKS.sub(" ", answer_html or "")
    return " ".join(html.unescape(strip_tags(spaced)).split())
