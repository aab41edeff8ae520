"""Streaming writer of the exchange format: records in, UTF-8 XML out, a piece at a time.

The caller feeds records in document order and drains the bytes with `take()` whenever it likes, so
memory stays the size of one record whatever the size of the knowledge base. Output is
deterministic (same records, same bytes): attributes in a fixed order, defaults left out, JSON with
sorted keys, two-space indentation, empty elements as `<name/>`.

The markup is written here rather than through lxml's incremental writer: the format is small and
fixed, escaping is a table, and this is five times faster on a bot of 100,000 items. lxml reads
(knowledge.xml.reader), and the tests check every export against the XML Schema.
"""

import base64
import json
import re

from . import FORMAT_VERSION, surveys
from .conditions import condition_attributes
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

IMAGE_PIECE_BYTES = 1024 * 1024
DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

# Characters XML 1.0 cannot carry at all (control characters, lone surrogates): dropped on export.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# Anything that needs work in text: markup characters, \r (a parser would turn \r\n into \n), or
# characters to drop.
_TEXT_WORK = re.compile("[&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ATTRIBUTE_WORK = re.compile('[&<>"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def clean(text) -> str:
    """The text without the characters XML cannot carry."""
    text = "" if text is None else str(text)
    return _NOT_XML.sub("", text) if _NOT_XML.search(text) else text


def escape_text(text) -> str:
    text = "" if text is None else str(text)
    if _TEXT_WORK.search(text) is None:
        return text
    # Chained replace() beats str.translate() by far on long HTML answers.
    text = clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\r", "&#13;")


def escape_attribute(text) -> str:
    text = "" if text is None else str(text)
    if _ATTRIBUTE_WORK.search(text) is None:
        return text
    text = clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    # Whitespace characters as references, so that a parser keeps them as they are.
    return text.replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;")


def json_text(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _attributes(attrib: dict) -> str:
    return "".join(f' {name}="{escape_attribute(value)}"' for name, value in attrib.items())


class KnowledgeBaseWriter:
    """One document. Open a section, write its records, close it; `finish()` ends the document."""

    def __init__(self, header: Header):
        self._parts: list[str] = [DECLARATION]
        self._size = len(DECLARATION)
        self._open: list[str] = []  # names of the open elements, innermost last
        self._waiting: str | None = None  # start tag of an element opened but not written yet
        self._tags: list[int] = []  # depths of the open tag elements
        self._items: list[bool] = []  # per open item: whether its <children> element is open
        attrib = {"formatVersion": header.format_version or FORMAT_VERSION}
        if header.bot_uuid:
            attrib["botUUID"] = header.bot_uuid
        if header.bot_name:
            attrib["botName"] = header.bot_name
        self._write(f"<{header.root}{_attributes(attrib)}>")
        self._open.append(header.root)

    # -- output ---------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Characters written and not yet taken (about the bytes: most are ASCII)."""
        return self._size

    def take(self) -> bytes:
        data = "".join(self._parts).encode("utf-8")
        self._parts.clear()
        self._size = 0
        return data

    def finish(self) -> bytes:
        while self._open or self._waiting is not None:
            self._end()
        self._write("\n")
        return self.take()

    # -- structure ------------------------------------------------------------------------------

    def _write(self, text: str):
        self._parts.append(text)
        self._size += len(text)

    def _start(self, name: str, attrib: dict | None = None):
        """Open an element. It is written when its first child comes, or as `<name/>` if it closes
        first (a streaming writer cannot know in advance)."""
        self._materialise()
        self._waiting = name
        self._waiting_start = f"<{name}{_attributes(attrib) if attrib else ''}"

    def _materialise(self):
        if self._waiting is None:
            return
        self._write(f"\n{'  ' * len(self._open)}{self._waiting_start}>")
        self._open.append(self._waiting)
        self._waiting = None

    def _end(self):
        if self._waiting is not None:
            self._write(f"\n{'  ' * len(self._open)}{self._waiting_start}/>")
            self._waiting = None
            return
        name = self._open.pop()
        self._write(f"\n{'  ' * len(self._open)}</{name}>")

    def _leaf(self, name: str, attrib: dict | None = None, text: str | None = None):
        if self._waiting is not None:
            self._materialise()
        start = f"\n{'  ' * len(self._open)}<{name}{_attributes(attrib) if attrib else ''}"
        self._write(f"{start}>{escape_text(text)}</{name}>" if text else f"{start}/>")

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
        attrib = {"code": record.code}
        if not record.available:
            attrib["available"] = "false"
        self._leaf("language", attrib)

    def space(self, record: Space):
        attrib = {"name": record.name}
        if record.default:
            attrib["default"] = "true"
        self._leaf("space", attrib)

    def tag(self, record: Tag):
        """Tags come depth-first; one deeper than the previous is its child."""
        while self._tags and self._tags[-1] >= record.depth:
            self._close_tag()
        self._start("tag", {"id": record.id, "name": record.name})
        self._tags.append(record.depth)

    def _close_tag(self):
        self._tags.pop()
        self._end()

    def matching_group(self, record: MatchingGroup):
        attrib = {"uuid": record.uuid, "name": record.name}
        if record.category:
            attrib["category"] = record.category
        self._start("matchingGroup", attrib)
        for member in record.members:
            self._leaf("member", None, member)
        self._end()

    def survey(self, record: surveys.Survey):
        surveys.write(self, record)

    def knowledge_item(self, record: KnowledgeItem):
        """Items come depth-first; one deeper than the previous is its decision-tree child."""
        while self._items and len(self._items) > record.depth:
            self._close_item()
        if self._items and not self._items[-1]:
            self._start("children")
            self._items[-1] = True
        attrib = {"id": record.id, "kind": record.kind, "status": record.status}
        if record.label:
            attrib["label"] = record.label
        if record.tag is not None:
            attrib["tag"] = record.tag
        if record.direct_access:
            attrib["directAccess"] = "true"
        if record.featured:
            attrib["featured"] = "true"
        if record.slot_variable:
            attrib["slotVariable"] = record.slot_variable
        if record.slot_type:
            attrib["slotType"] = record.slot_type
        self._start("knowledgeItem", attrib)
        self._items.append(False)
        if record.complement is not None:
            complement = record.complement
            attrib = {"position": complement.position}
            if complement.whole_knowledge_base:
                attrib["wholeKnowledgeBase"] = "true"
            if complement.activation != "always":
                attrib["activation"] = complement.activation
            if complement.n != 1:
                attrib["n"] = complement.n
            self._start("complement", attrib)
            for tag_id in complement.tags:
                self._leaf("targetTag", {"ref": tag_id})
            for item_id in complement.items:
                self._leaf("targetItem", {"ref": item_id})
            for condition in complement.conditions:
                self._leaf("condition", condition_attributes(condition))
            self._end()
        if record.event_rules is not None:
            self._leaf("eventRules", None, json_text(record.event_rules))
        self._slot_filling(record)
        for language, text, rewordable in record.formulations:
            self._leaf(
                "formulation",
                {"language": language} if rewordable else {"language": language, "rewordable": "false"},
                text,
            )
        for answer in record.answers:
            self._answer(answer)

    def _slot_filling(self, record: KnowledgeItem):
        """A slot's allowed values and sentences, an item's introduction and slots (languages sorted)."""
        for value in record.slot_values:
            self._leaf("slotValue", None, value)
        for name, texts in (
            ("slotQuestion", record.slot_question),
            ("slotInvalid", record.slot_invalid),
            ("slotIntroduction", record.slot_intro),
        ):
            for language in sorted(texts):
                self._leaf(name, {"language": language}, texts[language])
        for slot_id in record.slots:
            self._leaf("usesSlot", {"ref": slot_id})

    def _close_item(self):
        if self._items.pop():
            self._end()
        self._end()

    def _answer(self, answer: Answer):
        attrib = {"language": answer.language, "space": answer.space}
        if answer.ask_feedback:
            attrib["askFeedback"] = "true"
        if answer.livechat:
            attrib["livechat"] = "true"
        if answer.competency:
            attrib["competency"] = answer.competency
        if answer.survey:
            attrib["survey"] = answer.survey
        self._start("answer", attrib)
        if answer.text:
            self._leaf("text", None, answer.text)
        if answer.template_name:
            self._leaf("template", {"name": answer.template_name}, answer.template_data)
        if answer.sidebar is not None:
            self._leaf("sidebar", None, json_text(answer.sidebar))
        if answer.gui_action:
            self._leaf("guiAction", None, answer.gui_action)
        if answer.url_redirect:
            self._leaf("urlRedirect", None, answer.url_redirect)
        for step in answer.steps:
            self._start("step")
            self._leaf("text", None, step.get("text", ""))
            if step.get("sidebar") is not None:
                self._leaf("sidebar", None, json_text(step["sidebar"]))
            self._end()
        for branch in answer.branches:
            self._branch(branch)
        self._end()

    def _branch(self, branch):
        self._start("branch")
        for condition in branch.conditions:
            self._leaf("condition", condition_attributes(condition))
        if branch.text:
            self._leaf("text", None, branch.text)
        # By name: PostgreSQL's jsonb keeps no key order, and the same knowledge gives the same bytes.
        for name, value in sorted(branch.set_variables.items()):
            self._leaf("setVariable", {"name": name}, value)
        self._end()

    def global_sentence(self, record: GlobalSentence):
        self._leaf("globalSentence", {"language": record.language, "kind": record.kind}, record.text)

    def image(self, record: Image):
        self._start("image", {"name": record.name, "mediaType": record.media_type})
        content = bytes(record.content or b"")
        for start in range(0, len(content), IMAGE_PIECE_BYTES):
            piece = base64.b64encode(content[start : start + IMAGE_PIECE_BYTES]).decode("ascii")
            self._leaf("data", None, piece)
        self._end()

    def preference(self, record: Preference):
        self._leaf("preference", {"name": record.name}, record.value)
