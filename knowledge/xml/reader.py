"""Safe streaming reader of the exchange format: a file in, records out, in constant memory.

Hostile files get nowhere: no DTD is loaded and any DOCTYPE is refused before its declarations are
read (prolog.py: so no entity is ever declared or expanded: no billion laughs, no external entity, no
network), text nodes and nesting are bounded (libxml2 without huge_tree), and elements waiting in
memory are counted.

The file is read as a sequence of units (a language, a space, a tag, a matching group, a knowledge
item, a global sentence, an image, a preference). Each unit is checked against the XML Schema when
it ends (so an error names its line), then against the rules the schema cannot say (unique ids,
references, JSON), turned into a record and dropped from memory. Nested tags and decision-tree
children are units of their own, so even a huge tree never sits in memory whole.

With validate=False (the second pass of an import, over a file the first pass accepted) the checks
are skipped and only records come out.
"""

import base64
import binascii
import re
from array import array
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from bots.models import DEFAULT_SPACE_ALIASES

from .. import rich_answers
from . import FORMAT_VERSION, errors, schema, surveys
from .conditions import condition_of
from .errors import InvalidKnowledgeBaseFile
from .prolog import refuse_doctype
from .records import (
    Answer,
    AnswerBranch,
    Complement,
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

PARSER_OPTIONS = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
    "attribute_defaults": False,
}
# Decision trees and tag trees deeper than this are refused (the product advises three levels).
MAX_NESTING = 64
# Elements of one unit held in memory before it ends (an item with this many formulations…).
MAX_PENDING_ELEMENTS = 100_000

SECTIONS = (
    "languages",
    "spaces",
    "tags",
    "matchingGroups",
    "surveys",
    "knowledgeItems",
    "globalSentences",
    "gallery",
    "preferences",
)
SECTION_UNIT = {
    "languages": "language",
    "spaces": "space",
    "tags": "tag",
    "matchingGroups": "matchingGroup",
    "surveys": "survey",
    "knowledgeItems": "knowledgeItem",
    "globalSentences": "globalSentence",
    "gallery": "image",
    "preferences": "preference",
}
ROOTS = ("knowledgeBase", "gallery")
# Slot filling's parts of a knowledge item; the first three belong to slot items.
SLOT_OWN_PARTS = frozenset({"slotValue", "slotQuestion", "slotInvalid"})
SLOT_PARTS = SLOT_OWN_PARTS | {"slotIntroduction", "usesSlot"}
_TRUE, _FALSE = {"true", "1"}, {"false", "0"}
_LIBXML_WHERE = re.compile(r",? line \d+, column \d+\s*$")
_ATTRIBUTE_IN_MESSAGE = re.compile(r"attribute '([^']+)'")


@dataclass(slots=True)
class SectionStart:
    name: str
    attrib: dict


@dataclass(slots=True)
class SectionEnd:
    name: str


@dataclass
class Summary:
    """What the first pass learnt: enough to plan the import before writing anything."""

    sections: list[str] = field(default_factory=list)
    tag_ids: array = field(default_factory=lambda: array("q"))  # in document order (parents first)
    item_ids: array = field(default_factory=lambda: array("q"))
    group_uuids: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    item_kinds: Counter = field(default_factory=Counter)


@dataclass(slots=True)
class _Unit:
    element: object
    tag: str
    id: int | None
    parent_id: int | None
    depth: int
    position: int
    pending_at_start: int
    children: int = 0


def _flag(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    value = value.strip()
    return True if value in _TRUE else False if value in _FALSE else default


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class KnowledgeBaseReader:
    """Iterate to get records (Header, SectionStart, Language, …, SectionEnd); a refused file raises
    InvalidKnowledgeBaseFile. `summary` is complete once the iteration ends.

    `source` is a path or a seekable binary file. `bot_languages` / `bot_spaces` are what the bot has
    now: references are checked against them when the file has no languages / spaces section
    (None: not checked).
    """

    def __init__(
        self,
        source,
        *,
        root: str = "knowledgeBase",
        validate: bool = True,
        bot_languages: list[str] | None = None,
        bot_spaces: list[str] | None = None,
        progress=None,
    ):
        self.source = source
        self.root = root
        self.validate = validate
        self.progress = progress
        self.summary = Summary()
        self._bot_languages = None if bot_languages is None else set(bot_languages)
        self._bot_spaces = None if bot_spaces is None else {name.lower() for name in bot_spaces}
        self._stream = None
        self._pending = 0
        self._done: set = set()
        self._section_index = -1
        self._positions: Counter = Counter()
        self._languages: set[str] | None = None
        self._spaces: set[str] | None = None
        self._default_spaces = 0
        self._seen: dict[str, set] = {}
        self._units_read = 0
        self._item_targets: list[tuple[int, int]] = []  # complements' targetItem refs: (id, line)
        self._slot_items: set[int] = set()  # ids of the slot items read so far
        self._slot_refs: list[tuple[int, int]] = []  # usesSlot refs: (id, line), checked at the section's end

    # -- iteration ------------------------------------------------------------------------------

    def __iter__(self):
        owned = isinstance(self.source, (str, Path))
        stream = open(self.source, "rb") if owned else self.source  # noqa: SIM115 (closed below)
        if not owned:
            stream.seek(0)
        self._stream = stream
        try:
            refuse_doctype(stream)
            yield from self._read(stream)
            if self.progress is not None:
                self.progress(stream.seek(0, 2))
        except etree.XMLSyntaxError as error:
            raise self._malformed(error) from None
        finally:
            if owned:
                stream.close()

    def _read(self, stream):
        parser = etree.iterparse(stream, events=("start", "end"), **PARSER_OPTIONS)
        unit_depth = 3 if self.root == "knowledgeBase" else 2
        section = None
        units: list[_Unit] = []
        depth = 0
        for event, element in parser:
            if event == "start":
                depth += 1
                self._pending += 1
                if self._pending > MAX_PENDING_ELEMENTS:
                    raise self._error(
                        errors.TOO_BIG,
                        f"More than {MAX_PENDING_ELEMENTS} elements in one {units[-1].tag if units else 'element'}.",
                        element,
                    )
                if depth == 1:
                    yield self._start_root(element)
                    if unit_depth == 2:
                        section = self._start_section(element)
                        yield SectionStart(section, {})
                elif depth == 2 and unit_depth == 3:
                    section = self._start_section(element)
                    yield SectionStart(section, dict(element.attrib))
                elif depth == unit_depth:
                    units.append(self._start_unit(element, section, None))
                elif units and self._nests(element, units[-1]):
                    units.append(self._start_unit(element, section, units[-1]))
                continue
            if units and element is units[-1].element:
                yield self._end_unit(units.pop())
            elif depth == unit_depth - 1:
                self._end_section(element, section)
                yield SectionEnd(section)
                section = None
            if depth == 1:
                self._end_root(element)
            depth -= 1

    # -- root and sections ----------------------------------------------------------------------

    def _start_root(self, element) -> Header:
        # prolog.py refused any DOCTYPE before this parse began; checked again here in case libxml2 ever
        # reports one to the parse and not to the prolog's parser target.
        docinfo = element.getroottree().docinfo
        if docinfo.doctype or docinfo.internalDTD is not None or docinfo.system_url or docinfo.public_id:
            line, column = self._find(b"<!DOCTYPE", element.sourceline)
            raise InvalidKnowledgeBaseFile(
                errors.FORBIDDEN,
                "A DOCTYPE is not allowed in a knowledge base file (no DTD or entity is ever processed).",
                line,
                column,
            )
        if element.tag != self.root:
            if element.tag in ROOTS:
                reason = f"This is a {element.tag} file; a {self.root} file is expected here."
                code = errors.WRONG_DOCUMENT
            else:
                reason = f"The root element is '{element.tag}'; a knowledge base file starts with <{self.root}>."
                code = errors.SCHEMA
            raise self._error(code, reason, element)
        version = element.get("formatVersion")
        if version is None:
            raise self._error(errors.SCHEMA, f"<{self.root}> needs a formatVersion attribute.", element)
        if version != FORMAT_VERSION:
            raise self._error(
                errors.SCHEMA,
                f"Format version '{version[:20]}' is not supported (this server reads version {FORMAT_VERSION}).",
                element,
                "formatVersion",
            )
        if self.validate:
            self._validate(etree.Element(element.tag, dict(element.attrib)), element)
        return Header(
            root=element.tag,
            format_version=version,
            bot_uuid=element.get("botUUID", ""),
            bot_name=element.get("botName", ""),
        )

    def _start_section(self, element) -> str:
        name = element.tag
        if name == self.root and self.root == "gallery":
            self.summary.sections.append("gallery")
            return "gallery"
        if name not in SECTIONS:
            raise self._error(
                errors.SCHEMA, f"Element '{name}' is not expected here; sections are {', '.join(SECTIONS)}.", element
            )
        index = SECTIONS.index(name)
        if index <= self._section_index:
            reason = (
                f"Section '{name}' appears twice."
                if name in self.summary.sections
                else f"Section '{name}' must come before '{SECTIONS[self._section_index]}'."
            )
            raise self._error(errors.SCHEMA, reason, element)
        self._section_index = index
        self.summary.sections.append(name)
        if self.validate:
            self._check_text(element.getparent().text, element)
            previous = element.getprevious()
            if previous is not None:
                self._check_text(previous.tail, element)
            shell = etree.Element(self.root, {"formatVersion": FORMAT_VERSION})
            etree.SubElement(shell, name, dict(element.attrib))
            self._validate(shell, element)
        if name == "languages":
            self._languages = {element.get("default", "")}
        elif name == "spaces":
            self._spaces = set()
        return name

    def _end_section(self, element, name: str):
        self._drop_done(element)
        if self.validate:
            self._check_text(element.text, element)
            if name == "spaces" and self._spaces and self._default_spaces != 1:
                raise self._error(errors.INVALID_VALUE, "Exactly one space must be the default one.", element)
            if name == "knowledgeItems":
                self._check_item_targets()
                self._check_slot_refs()

    def _end_root(self, element):
        if self.root == "gallery":
            return
        if self.validate:
            self._check_text(element.text, element)
            for section in element:
                self._check_text(section.tail, section)

    # -- units ----------------------------------------------------------------------------------

    def _nests(self, element, parent: _Unit) -> bool:
        tag = element.tag
        if tag == "tag" and parent.tag == "tag":
            return element.getparent() is parent.element
        if tag == "knowledgeItem" and parent.tag == "knowledgeItem":
            container = element.getparent()
            return container.tag == "children" and container.getparent() is parent.element
        return False

    def _start_unit(self, element, section: str, parent: _Unit | None) -> _Unit:
        expected = SECTION_UNIT[section] if parent is None else parent.tag
        if element.tag != expected:
            raise self._error(
                errors.SCHEMA, f"Element '{element.tag}' is not expected in {section} (only {expected}).", element
            )
        depth = 0 if parent is None else parent.depth + 1
        if depth >= MAX_NESTING:
            raise self._error(errors.TOO_DEEP, f"The {element.tag} tree is deeper than {MAX_NESTING} levels.", element)
        if parent is None:
            position = self._positions[section]
            self._positions[section] += 1
        else:
            position = parent.children
            parent.children += 1
        unit_id = _int(element.get("id")) if element.tag in ("tag", "knowledgeItem") else None
        if self.validate and unit_id is not None:
            (self.summary.tag_ids if element.tag == "tag" else self.summary.item_ids).append(unit_id)
        return _Unit(
            element=element,
            tag=element.tag,
            id=unit_id,
            parent_id=parent.id if parent is not None else None,
            depth=depth,
            position=position,
            pending_at_start=self._pending - 1,
        )

    def _end_unit(self, unit: _Unit):
        element = unit.element
        if unit.tag == "knowledgeItem":
            for container in element.iterchildren("children"):
                self._drop_done(container)
        elif unit.tag == "tag":
            self._drop_done(element)
        if self.validate:
            self._validate(element)
        record = getattr(self, "_read_" + unit.tag)(element, unit)
        self._forget(element)
        self._pending = unit.pending_at_start + 1
        self.summary.counts[unit.tag] += 1
        self._units_read += 1
        if self.progress is not None and self._units_read % 512 == 0:
            self.progress(self._stream.tell())
        return record

    def _forget(self, element):
        """Drop a unit from memory: its content now, the element itself once the next one ends (lxml
        must not lose an element whose tail it may still be reading)."""
        element.clear(keep_tail=True)
        parent = element.getparent()
        previous = element.getprevious()
        while previous is not None and previous in self._done:
            if self.validate:
                self._check_text(previous.tail, element)
            self._done.discard(previous)
            parent.remove(previous)
            previous = element.getprevious()
        self._done.add(element)

    def _drop_done(self, container):
        for child in list(container):
            if child in self._done:
                if self.validate:
                    self._check_text(child.tail, child)
                self._done.discard(child)
                container.remove(child)

    # -- one reader per unit --------------------------------------------------------------------

    def _read_language(self, element, unit) -> Language:
        code = element.get("code", "")
        if self.validate:
            self._unique("language", code, element, f"Language '{code}' is declared twice.", "code")
        if self._languages is not None:
            self._languages.add(code)
        return Language(code=code, available=_flag(element.get("available"), True))

    def _read_space(self, element, unit) -> Space:
        name = element.get("name", "")
        default = _flag(element.get("default"), False)
        if self.validate:
            self._unique("space", name.lower(), element, f"Space '{name}' is declared twice.", "name")
            self._default_spaces += default
            if self._default_spaces > 1:
                raise self._error(errors.INVALID_VALUE, "Only one space can be the default one.", element, "default")
        self._spaces.add(name.lower())
        return Space(name=name, default=default)

    def _read_tag(self, element, unit) -> Tag:
        name = element.get("name", "")
        if self.validate:
            self._unique("tag", unit.id, element, f"Tag id {unit.id} is used twice.", "id")
            self._unique(
                "tag name",
                (unit.parent_id, name),
                element,
                f"Two tags under the same parent are named '{name}'.",
                "name",
            )
        return Tag(id=unit.id, name=name, parent=unit.parent_id, depth=unit.depth)

    def _read_matchingGroup(self, element, unit) -> MatchingGroup:
        uuid = element.get("uuid", "").lower()
        name = element.get("name", "")
        if self.validate:
            self._unique("group uuid", uuid, element, f"Matching group uuid {uuid} is used twice.", "uuid")
            self._unique("group", name.lower(), element, f"Two matching groups are named '{name}'.", "name")
            self.summary.group_uuids.append(uuid)
        return MatchingGroup(
            uuid=uuid,
            name=name,
            category=element.get("category", ""),
            members=[member.text or "" for member in element.iterchildren("member")],
        )

    def _read_survey(self, element, unit) -> surveys.Survey:
        survey = surveys.read(element)
        if self.validate:
            self._unique("survey", survey.uuid, element, f"Survey uuid {survey.uuid} is used twice.", "uuid")
            self._unique(
                "survey name",
                (survey.name, survey.language),
                element,
                f"Two surveys are named '{survey.name}' in language '{survey.language}'.",
                "name",
            )
            self._language_exists(survey.language, element)
            wrong = surveys.problem(survey)
            if wrong is not None:
                index, reason = wrong
                raise self._error(errors.INVALID_VALUE, reason, list(element.iterchildren("field"))[index])
        return survey

    def _read_knowledgeItem(self, element, unit) -> KnowledgeItem:
        kind = element.get("kind", "question")
        item = KnowledgeItem(
            id=unit.id,
            kind=kind,
            status=element.get("status", "draft"),
            label=element.get("label", ""),
            tag=_int(element.get("tag")),
            parent=unit.parent_id,
            direct_access=_flag(element.get("directAccess"), False),
            featured=_flag(element.get("featured"), False),
            slot_variable=element.get("slotVariable", ""),
            slot_type=element.get("slotType", ""),
            depth=unit.depth,
            position=unit.position,
        )
        if self.validate:
            self._unique("item", unit.id, element, f"Knowledge item id {unit.id} is used twice.", "id")
            self._tag_exists(item.tag, element, "tag")
            if element.get("slotVariable") is not None and kind != "slot":
                raise self._error(
                    errors.INVALID_VALUE, "slotVariable is only for kind 'slot'.", element, "slotVariable"
                )
            if element.get("slotType") is not None and kind != "slot":
                raise self._error(errors.INVALID_VALUE, "slotType is only for kind 'slot'.", element, "slotType")
            if kind == "slot":
                self._slot_items.add(unit.id)
            self.summary.item_kinds[kind] += 1
        for child in element:
            tag = child.tag
            if tag == "formulation":
                language = child.get("language", "")
                if self.validate:
                    self._language_exists(language, child)
                item.formulations.append((language, child.text or "", _flag(child.get("rewordable"), True)))
            elif tag == "answer":
                item.answers.append(self._answer(child))
            elif tag == "complement":
                if self.validate and kind != "complementary":
                    raise self._error(errors.INVALID_VALUE, "complement is only for kind 'complementary'.", child)
                tags = [_int(target.get("ref")) for target in child.iterchildren("targetTag")]
                items = [_int(target.get("ref")) for target in child.iterchildren("targetItem")]
                if self.validate:
                    for target, tag_id in zip(child.iterchildren("targetTag"), tags, strict=True):
                        self._tag_exists(tag_id, target, "ref")
                    # An item may target one defined further on: checked when the section ends.
                    for target, item_id in zip(child.iterchildren("targetItem"), items, strict=True):
                        self._item_targets.append((item_id, target.sourceline))
                item.complement = Complement(
                    position=child.get("position", "after"),
                    whole_knowledge_base=_flag(child.get("wholeKnowledgeBase"), False),
                    tags=tags,
                    items=items,
                    activation=child.get("activation", "always"),
                    n=_int(child.get("n")) or 1,
                    conditions=[condition_of(condition) for condition in child.iterchildren("condition")],
                )
            elif tag in SLOT_PARTS:
                self._slot_part(item, kind, child)
            elif tag == "eventRules":
                if self.validate and kind != "event":
                    raise self._error(errors.INVALID_VALUE, "eventRules is only for kind 'event'.", child)
                item.event_rules = self._json(child, list, "a JSON array of rules")
        if self.validate:
            self.summary.counts["formulation"] += len(item.formulations)
            self.summary.counts["answer"] += len(item.answers)
            seen = set()
            for answer, child in zip(item.answers, element.iterchildren("answer"), strict=True):
                key = (answer.language, answer.space.lower())
                if key in seen:
                    raise self._error(
                        errors.DUPLICATE, f"Two answers for language '{key[0]}' and space '{answer.space}'.", child
                    )
                seen.add(key)
        return item

    def _answer(self, element) -> Answer:
        answer = Answer(
            language=element.get("language", ""),
            space=element.get("space", ""),
            ask_feedback=_flag(element.get("askFeedback"), False),
            livechat=_flag(element.get("livechat"), False),
            competency=element.get("competency", ""),
            survey=element.get("survey", "").lower(),
        )
        if self.validate:
            self._language_exists(answer.language, element)
            self._space_exists(answer.space, element)
            if answer.survey and answer.survey not in self._seen.get("survey", ()):
                raise self._error(
                    errors.DANGLING, f"Survey {answer.survey} is not defined in the surveys section.", element, "survey"
                )
        for part in element:
            tag = part.tag
            if tag == "text":
                answer.text = part.text or ""
            elif tag == "template":
                answer.template_name = part.get("name", "")
                answer.template_data = part.text or ""
            elif tag == "sidebar":
                answer.sidebar = self._json(part, dict, "a JSON object")
            elif tag == "guiAction":
                answer.gui_action = part.text or ""
            elif tag == "urlRedirect":
                answer.url_redirect = part.text or ""
            elif tag == "step":
                answer.steps.append(self._step(part))
            elif tag == "branch":
                answer.branches.append(self._branch(part))
        if self.validate:
            try:
                rich_answers.check_answer(
                    template_name=answer.template_name,
                    template_data=answer.template_data,
                    url_redirect=answer.url_redirect,
                    steps=answer.steps,
                )
            except rich_answers.RichAnswerError as error:
                raise self._error(errors.INVALID_VALUE, str(error), element) from None
        return answer

    def _branch(self, element) -> AnswerBranch:
        branch = AnswerBranch()
        for part in element:
            if part.tag == "condition":
                branch.conditions.append(condition_of(part))
            elif part.tag == "text":
                branch.text = part.text or ""
            elif part.tag == "setVariable":
                name = part.get("name", "")
                if self.validate and name in branch.set_variables:
                    raise self._error(errors.DUPLICATE, f"The branch sets '{name}' twice.", part, "name")
                branch.set_variables[name] = part.text or ""
        return branch

    def _step(self, element) -> dict:
        step = {"text": ""}
        for part in element:
            if part.tag == "text":
                step["text"] = part.text or ""
            elif part.tag == "sidebar":
                step["sidebar"] = self._json(part, dict, "a JSON object")
        return step

    def _read_globalSentence(self, element, unit) -> GlobalSentence:
        language, kind = element.get("language", ""), element.get("kind", "")
        if self.validate:
            self._language_exists(language, element)
            self._unique(
                "sentence", (language, kind), element, f"Two '{kind}' global sentences in language '{language}'."
            )
        return GlobalSentence(language=language, kind=kind, text=element.text or "")

    def _read_image(self, element, unit) -> Image:
        name = element.get("name", "")
        if self.validate:
            self._unique("image", name, element, f"Two images are named '{name}'.", "name")
        pieces = []
        for data in element.iterchildren("data"):
            try:
                pieces.append(base64.b64decode("".join((data.text or "").split()), validate=True))
            except binascii.Error as error:
                raise self._error(errors.INVALID_VALUE, f"The image data is not base64: {error}.", data) from None
        return Image(name=name, media_type=element.get("mediaType", ""), content=b"".join(pieces))

    def _read_preference(self, element, unit) -> Preference:
        name = element.get("name", "")
        if self.validate:
            self._unique("preference", name, element, f"Preference '{name}' is given twice.", "name")
        return Preference(name=name, value=element.text or "", line=element.sourceline or 0)

    # -- checks the schema cannot make ----------------------------------------------------------

    def _unique(self, kind: str, key, element, reason: str, attribute: str | None = None):
        seen = self._seen.setdefault(kind, set())
        if key in seen:
            raise self._error(errors.DUPLICATE, reason, element, attribute)
        seen.add(key)

    def _slot_part(self, item: KnowledgeItem, kind: str, child):
        """Slot filling: a slot's slotValue, slotQuestion, slotInvalid; an item's slotIntroduction and
        usesSlot (a slot item, maybe defined further on: checked when the section ends)."""
        tag = child.tag
        if self.validate and (kind == "slot") != (tag in SLOT_OWN_PARTS):
            where = "only for kind 'slot'" if tag in SLOT_OWN_PARTS else "not for kind 'slot'"
            raise self._error(errors.INVALID_VALUE, f"{tag} is {where}.", child)
        if tag == "slotValue":
            item.slot_values.append(child.text or "")
        elif tag == "usesSlot":
            ref = _int(child.get("ref"))
            if self.validate:
                self._slot_refs.append((ref, child.sourceline))
            item.slots.append(ref)
        else:
            texts = {"slotQuestion": item.slot_question, "slotInvalid": item.slot_invalid}.get(tag, item.slot_intro)
            language = child.get("language", "")
            if self.validate:
                self._language_exists(language, child)
                if language in texts:
                    raise self._error(errors.DUPLICATE, f"Two {tag} in language '{language}'.", child, "language")
            texts[language] = child.text or ""

    def _check_slot_refs(self):
        for item_id, line in self._slot_refs:
            if item_id not in self._slot_items:
                raise InvalidKnowledgeBaseFile(
                    errors.DANGLING,
                    f"usesSlot: knowledge item {item_id} is not a slot item of the knowledgeItems section.",
                    line,
                    self._column(line, "usesSlot", "ref"),
                )

    def _check_item_targets(self):
        items = self._seen.get("item", set())
        for item_id, line in self._item_targets:
            if item_id not in items:
                raise InvalidKnowledgeBaseFile(
                    errors.DANGLING,
                    f"Knowledge item {item_id} is not defined in the knowledgeItems section.",
                    line,
                    self._column(line, "targetItem", "ref"),
                )

    def _tag_exists(self, tag_id, element, attribute: str):
        if tag_id is not None and tag_id not in self._seen.get("tag", ()):
            raise self._error(errors.DANGLING, f"Tag {tag_id} is not defined in the tags section.", element, attribute)

    def _language_exists(self, code: str, element):
        known = self._languages if self._languages is not None else self._bot_languages
        if known is not None and code not in known:
            raise self._error(
                errors.DANGLING,
                f"Language '{code}' is not one of the knowledge base's languages ({', '.join(sorted(known))}).",
                element,
                "language",
            )

    def _space_exists(self, name: str, element):
        if self._spaces is not None:
            known = self._spaces
        elif self._bot_spaces is not None:
            known = self._bot_spaces | DEFAULT_SPACE_ALIASES
        else:
            return
        if name.lower() not in known:
            raise self._error(
                errors.DANGLING, f"Space '{name}' is not defined in the spaces section.", element, "space"
            )

    def _json(self, element, expected: type, what: str):
        import json

        text = element.text or ""
        try:
            value = json.loads(text)
        except ValueError as error:
            if not self.validate:
                raise
            raise self._error(errors.INVALID_VALUE, f"{element.tag} must hold {what}: {error}.", element) from None
        if value is not None and not isinstance(value, expected):
            raise self._error(errors.INVALID_VALUE, f"{element.tag} must hold {what}.", element)
        return value

    def _check_text(self, text: str | None, element):
        if text and text.strip():
            raise self._error(
                errors.SCHEMA, f"Text '{text.strip()[:40]}' is not allowed here (only elements).", element
            )

    def _validate(self, element, located=None):
        checker = schema()
        if checker.validate(element):
            return
        entry = checker.error_log[0]
        reason = entry.message
        found = located if located is not None else self._element_at(element, entry.path)
        attribute = _ATTRIBUTE_IN_MESSAGE.search(reason)
        raise self._error(
            errors.SCHEMA, reason, found, attribute.group(1) if attribute else None, line=entry.line or found.sourceline
        )

    @staticmethod
    def _element_at(unit, path: str | None):
        """The element a schema error's path names, inside the unit that was validated."""
        steps = (path or "").strip("/").split("/")[1:]
        if not steps:
            return unit
        try:
            found = unit.xpath("/".join(steps))
        except etree.XPathError:
            return unit
        return found[0] if found and isinstance(found[0], etree._Element) else unit

    # -- where: line and column -----------------------------------------------------------------

    def _error(self, code: str, reason: str, element, attribute: str | None = None, *, line: int | None = None):
        line = line or (element.sourceline if element is not None else None)
        tag = element.tag if element is not None and isinstance(element.tag, str) else None
        return InvalidKnowledgeBaseFile(code, reason, line, self._column(line, tag, attribute))

    def _malformed(self, error: etree.XMLSyntaxError) -> InvalidKnowledgeBaseFile:
        line, column = error.position if error.lineno else (0, 0)
        message = error.msg or ""
        if not line:
            last = error.error_log.last_error
            if last is not None:
                line, column, message = last.line, last.column, last.message
        message = _LIBXML_WHERE.sub("", message or "The file is not well-formed XML.").strip()
        code = errors.MALFORMED
        if "Excessive depth" in message:
            code = errors.TOO_DEEP
        elif "huge" in message.lower() or "amplification" in message.lower():
            code = errors.TOO_BIG
        if not line:
            line, column = 1, 1
        return InvalidKnowledgeBaseFile(code, f"Not well-formed XML: {message}", line, column or 1)

    def _column(self, line: int | None, tag: str | None, attribute: str | None) -> int:
        return column_of(self._stream, line, tag, attribute)

    def _find(self, needle: bytes, before_line: int | None) -> tuple[int, int]:
        stream = self._stream
        try:
            stream.seek(0)
            for number, raw in enumerate(stream, start=1):
                at = raw.find(needle)
                if at >= 0:
                    return number, len(raw[:at].decode("utf-8", errors="replace")) + 1
                if before_line and number >= before_line:
                    break
        except (OSError, ValueError, AttributeError):
            pass
        return 1, 1


def _source_line(source, line: int) -> str | None:
    if source is None or not line:
        return None
    if isinstance(source, (str, Path)):
        with open(source, "rb") as stream:
            return _source_line(stream, line)
    try:
        source.seek(0)
        for number, raw in enumerate(source, start=1):
            if number == line:
                return raw.decode("utf-8", errors="replace")
    except (OSError, ValueError, AttributeError):
        return None
    return None


def column_of(source, line: int | None, tag: str | None, attribute: str | None = None) -> int:
    """1-based column of an element's start tag (or of the attribute in it) on that line of the file
    (a path or a seekable binary file). Only used once a file is refused: it reads the file again."""
    text = _source_line(source, line) if line else None
    if not text or not tag:
        return 1
    starts = list(re.finditer(rf"<{re.escape(tag)}(?=[\s/>])", text))
    if attribute is not None:
        for match in starts:
            end = text.find(">", match.end())
            start_tag = text[match.end() : end if end >= 0 else len(text)]
            found = re.search(rf"(?<![\w:.-]){re.escape(attribute)}\s*=", start_tag)
            if found:
                return match.end() + found.start() + 1
    return starts[0].start() + 1 if starts else 1
