"""A knowledge base file's prolog, read before the file is parsed: a DOCTYPE is refused where it starts,
before the XML parser reads any of it (its internal subset, entities, external identifiers).

libxml2 only reports a DOCTYPE once it holds the whole declaration, and the reader's own parse (reader.py)
sees it at the root element, after the internal subset was parsed: safe (nothing is expanded or fetched),
but a hostile subset was answered MALFORMED_XML or TOO_BIG, after being read whole, instead of the
FORBIDDEN_XML every DOCTYPE gets here from the bytes that come before it.

The prolog is what may precede the root element (XML 1.0 §2.8): a byte order mark, the XML declaration,
comments, processing instructions, white space, and the DOCTYPE. Its markup is ASCII, so the bytes are read
as UTF-8 (any ASCII-compatible encoding reads the same here) or, told by the first bytes, as UTF-16.
"""

import codecs

from . import errors
from .errors import InvalidKnowledgeBaseFile

READ_BYTES = 64 * 1024
DOCTYPE = "<!DOCTYPE"
WHITE_SPACE = " \t\r\n"
REASON = "A DOCTYPE is not allowed in a knowledge base file (no DTD or entity is ever processed)."
# The markup that may come before the root element, with how it ends.
SKIPPED = (("<?", "?>"), ("<!--", "-->"))


def refuse_doctype(stream) -> None:
    """FORBIDDEN_XML, with the line and column where the DOCTYPE starts, if the file has one; reads the
    file only up to its first element (or its DOCTYPE) and leaves the stream where it found it. A prolog
    that is not well-formed is left to the parse, which names the error."""
    start = stream.tell()
    try:
        where = _doctype_position(stream)
    finally:
        stream.seek(start)
    if where is not None:
        raise InvalidKnowledgeBaseFile(errors.FORBIDDEN, REASON, *where)


def _encoding(first: bytes) -> str:
    if first.startswith(b"\xff\xfe") or first.startswith(b"<\x00?\x00"):
        return "utf-16-le"
    if first.startswith(b"\xfe\xff") or first.startswith(b"\x00<\x00?"):
        return "utf-16-be"
    return "utf-8"


class _Prolog:
    """The decoded text of the file's head, consumed from the front, with the line and column reached."""

    def __init__(self, stream):
        self.stream = stream
        first = stream.read(READ_BYTES)
        self.decoder = codecs.getincrementaldecoder(_encoding(first))(errors="replace")
        self.text = self.decoder.decode(first).lstrip("\ufeff")
        self.ended = not first
        self.line, self.column = 1, 1

    def more(self) -> bool:
        """Read the next piece; False at the end of the file."""
        if self.ended:
            return False
        piece = self.stream.read(READ_BYTES)
        self.ended = not piece
        self.text += self.decoder.decode(piece, final=self.ended)
        return bool(piece)

    def consume(self, count: int) -> None:
        done, self.text = self.text[:count], self.text[count:]
        newlines = done.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(done) - done.rfind("\n")
        else:
            self.column += len(done)


def _doctype_position(stream) -> tuple[int, int] | None:
    prolog = _Prolog(stream)
    while True:
        prolog.consume(len(prolog.text) - len(prolog.text.lstrip(WHITE_SPACE)))
        if len(prolog.text) < len(DOCTYPE) and prolog.more():
            continue
        if prolog.text.startswith(DOCTYPE):
            return prolog.line, prolog.column
        skipped = next(((opening, end) for opening, end in SKIPPED if prolog.text.startswith(opening)), None)
        if skipped is None:
            return None  # the root element, the end of the file or something the parse will refuse
        opening, end = skipped
        prolog.consume(len(opening))
        while (at := prolog.text.find(end)) < 0:
            # Only what could be the start of the end is kept: a long comment is never held whole.
            prolog.consume(max(0, len(prolog.text) - (len(end) - 1)))
            if not prolog.more():
                return None
        prolog.consume(at + len(end))
