"""A knowledge answer's HTML as the plain text an operator writes: paragraphs and line breaks kept, list
items as bullets, a link's address after its words (the operator's message makes it a link again),
entities decoded, scripts and styles dropped."""

import re
from html.parser import HTMLParser

BLOCKS = {"p", "div", "ul", "ol", "table", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "section"}
SKIPPED = {"script", "style", "template"}
WEB = re.compile(r"https?://", re.IGNORECASE)


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0
        # The open links: their address ("" for one that is not a web address) and where their words start.
        self.links: list[tuple[str, int]] = []

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.skipping += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag in BLOCKS:
            self.parts.append("\n\n")
        elif tag == "li":
            self.parts.append("\n• ")
        elif tag == "a":
            href = (dict(attrs).get("href") or "").strip()
            self.links.append((href if WEB.match(href) else "", len(self.parts)))

    def handle_startendtag(self, tag, attrs):
        if tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in BLOCKS:
            self.parts.append("\n\n")
        elif tag == "a" and self.links:
            href, start = self.links.pop()
            # A link whose words are its address needs it once only.
            if href and href not in "".join(self.parts[start:]):
                self.parts.append(f" ({href})")

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def plain_text(answer_html: str) -> str:
    reader = _Reader()
    reader.feed(answer_html or "")
    reader.close()
    text = "".join(reader.parts).replace("\r", "").replace("\xa0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def same_text(a: str, b: str) -> bool:
    """Whether two messages say the same, spaces and line breaks aside (an untouched suggestion)."""
    return " ".join((a or "").split()) == " ".join((b or "").split())
