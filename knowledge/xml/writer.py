"""Streaming writer of the exchange format: records in, UTF-8 XML out, a piece at a time.

The caller feeds records in document order and drains the bytes with `take()` whenever it likes, so
memory stays the size of one record whatever the size of the knowledge base. Output is
deterministic (same records, same bytes): attributes in a fixed order, defaults left out, JSON with
sorted keys, two-space indentation.
"""

import base64
import json
import re

from lxml import etree

from . import FORMAT_VERSION
from .records import (
    Answer,
    GlobalSentence,
    Header,
    Image,
    KnowledgeItem,
    Language,
    MatchingGroup,
    Preference,
    Space,
    Tag,
)

# Characters XML 1.0 cannot carry at all (control characters, lone surrogates): dropped on export.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
IMAGE_PIECE_BYTES = 1024 * 1024


def clean(text) -> str:
    text = "" if text is None else str(text)
    return _NOT_XML.sub("", text) if _NOT_XML.search(text) else text


def json_text(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _bool(value: bool) -> str:
    return "true" if value else "false"


class _Sink:
    """What lxml writes into; `take()` hands the bytes over and forgets them."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.size = 0

    def write(self, data: bytes):
        self.parts.append(data)
        self.size += len(data)

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts.clear()
        self.size = 0
        return data


class KnowledgeBaseWriter:
    """One document. Open a section, write its records, close it; `finish()` ends the document."""

    def __init__(self, header: Header):
        self._sink = _Sink()
        self._file_cm = etree.xmlfile(self._sink, encoding="utf-8")
        self._xf = self._file_cm.__enter__()
        self._open: list = []  # context managers of the open elements, innermost last
        self._waiting: tuple | None = None  # an element opened but not written yet
        self._tags: list[int] = []  # depths of the open tag elements
        self._items: list[bool] = []  # per open item: whether its <children> element is open
        self._xf.write_declaration()
        attrib = {"formatVersion": header.format_version or FORMAT_VERSION}
        if header.bot_uuid:
            attrib["botUUID"] = header.bot_uuid
        if header.bot_name:
            attrib["botName"] = clean(header.bot_name)
        self._start(header.root, attrib)
        self._materialise()

    # -- output ---------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Bytes written and not yet taken (after lxml's own buffer is flushed)."""
        self._xf.flush()
        return self._sink.size

    def take(self) -> bytes:
        self._xf.flush()
        return self._sink.take()

    def finish(self) -> bytes:
        while self._open or self._waiting is not None:
            self._end()
        self._file_cm.__exit__(None, None, None)
        self._sink.write(b"\n")
        return self._sink.take()

    # -- structure ------------------------------------------------------------------------------

    def _indent(self):
        self._xf.write("\n" + "  " * len(self._open))

    def _start(self, tag: str, attrib: dict | None = None):
        """Open an element. It is written when its first child comes, or as an empty element
        `<tag/>` if it closes first (a streaming writer cannot know in advance)."""
        self._materialise()
        self._waiting = (tag, attrib or {})

    def _materialise(self):
        if self._waiting is None:
            return
        tag, attrib = self._waiting
        self._waiting = None
        if self._open:
            self._indent()
        cm = self._xf.element(tag, attrib)
        cm.__enter__()
        self._open.append(cm)

    def _end(self):
        if self._waiting is not None:
            tag, attrib = self._waiting
            self._waiting = None
            self._leaf(tag, attrib)
            return
        cm = self._open.pop()
        self._indent()
        cm.__exit__(None, None, None)

    def _leaf(self, tag: str, attrib: dict | None = None, text: str | None = None):
        self._materialise()
        self._indent()
        element = etree.Element(tag, attrib or {})
        if text:
            element.text = clean(text)
        self._xf.write(element)

    def open_section(self, name: str, attrib: dict | None = None):
        self._start(name, attrib)

    def close_section(self):
        while self._tags:
            self._close_tag()
        while self._items:
            self._close_item()
        self._end()

    # -- records --------------------------------------------------------------------------------

    def language(self, record: Language):
        attrib = {"code": clean(record.code)}
        if not record.available:
            attrib["available"] = "false"
        self._leaf("language", attrib)

    def space(self, record: Space):
        attrib = {"name": clean(record.name)}
        if record.default:
            attrib["default"] = "true"
        self._leaf("space", attrib)

    def tag(self, record: Tag):
        """Tags come depth-first; one deeper than the previous is its child."""
        while self._tags and self._tags[-1] >= record.depth:
            self._close_tag()
        self._start("tag", {"id": str(record.id), "name": clean(record.name)})
        self._tags.append(record.depth)

    def _close_tag(self):
        self._tags.pop()
        self._end()

    def matching_group(self, record: MatchingGroup):
        attrib = {"uuid": str(record.uuid), "name": clean(record.name)}
        if record.category:
            attrib["category"] = clean(record.category)
        self._start("matchingGroup", attrib)
        for member in record.members:
            self._leaf("member", None, member)
        self._end()

    def knowledge_item(self, record: KnowledgeItem):
        """Items come depth-first; one deeper than the previous is its decision-tree child."""
        while self._items and len(self._items) > record.depth:
            self._close_item()
        if self._items and not self._items[-1]:
            self._start("children")
            self._items[-1] = True
        attrib = {"id": str(record.id), "kind": record.kind, "status": record.status}
        if record.label:
            attrib["label"] = clean(record.label)
        if record.tag is not None:
            attrib["tag"] = str(record.tag)
        if record.direct_access:
            attrib["directAccess"] = "true"
        if record.slot_variable:
            attrib["slotVariable"] = clean(record.slot_variable)
        self._start("knowledgeItem", attrib)
        self._items.append(False)
        if record.complement is not None:
            complement = record.complement
            attrib = {"position": complement.position}
            if complement.whole_knowledge_base:
                attrib["wholeKnowledgeBase"] = "true"
            self._start("complement", attrib)
            for tag_id in complement.tags:
                self._leaf("targetTag", {"ref": str(tag_id)})
            self._end()
        if record.event_rules is not None:
            self._leaf("eventRules", None, json_text(record.event_rules))
        for language, text, rewordable in record.formulations:
            attrib = {"language": clean(language)}
            if not rewordable:
                attrib["rewordable"] = "false"
            self._leaf("formulation", attrib, text)
        for answer in record.answers:
            self._answer(answer)

    def _close_item(self):
        if self._items.pop():
            self._end()
        self._end()

    def _answer(self, answer: Answer):
        attrib = {"language": clean(answer.language), "space": clean(answer.space)}
        if answer.ask_feedback:
            attrib["askFeedback"] = "true"
        if answer.livechat:
            attrib["livechat"] = "true"
        self._start("answer", attrib)
        if answer.text:
            self._leaf("text", None, answer.text)
        if answer.template_name:
            self._leaf("template", {"name": clean(answer.template_name)}, answer.template_data)
        if answer.sidebar is not None:
            self._leaf("sidebar", None, json_text(answer.sidebar))
        if answer.gui_action:
            self._leaf("guiAction", None, answer.gui_action)
        self._end()

    def global_sentence(self, record: GlobalSentence):
        self._leaf("globalSentence", {"language": clean(record.language), "kind": record.kind}, record.text)

    def image(self, record: Image):
        attrib = {"name": clean(record.name), "mediaType": clean(record.media_type)}
        content = bytes(record.content or b"")
        self._start("image", attrib)
        for start in range(0, len(content), IMAGE_PIECE_BYTES):
            piece = base64.b64encode(content[start : start + IMAGE_PIECE_BYTES]).decode("ascii")
            self._leaf("data", None, piece)
        self._end()

    def preference(self, record: Preference):
        self._leaf("preference", {"name": clean(record.name)}, record.value)
