"""The exchange format itself: the schema, the writer's escaping, the reader's records, and the
README example, which must stay a valid file."""

import io
import re
from pathlib import Path

import pytest
from lxml import etree

from knowledge.xml import SCHEMA_PATH, records, schema
from knowledge.xml.errors import InvalidKnowledgeBaseFile
from knowledge.xml.reader import KnowledgeBaseReader
from knowledge.xml.writer import KnowledgeBaseWriter

DOC = Path(__file__).resolve().parents[2] / "docs" / "knowledge-base-xml.md"
TRICKY = [
    "plain",
    "<b>bold</b> & \"quoted\" 'single'",
    "line one\r\nline two\rthree\n\ttabbed",
    "]]> and <![CDATA[ not cdata ]]>",
    "accents éèà, emoji 🙂, CJK 漢字",
    "   leading and trailing spaces   ",
]


def write(*sections) -> bytes:
    writer = KnowledgeBaseWriter(records.Header(bot_name='Tricky "bot" <&>'))
    for name, attrib, items in sections:
        writer.open_section(name, attrib)
        for method, record in items:
            getattr(writer, method)(record)
        writer.close_section()
    return writer.finish()


def read(document: bytes, **options) -> list:
    return list(KnowledgeBaseReader(io.BytesIO(document), **options))


def test_the_schema_is_a_valid_xml_schema_of_version_1():
    assert SCHEMA_PATH.name == "knowledge-base-1.xsd"
    document = etree.parse(str(SCHEMA_PATH))
    assert document.getroot().get("version") == "1"
    assert schema() is schema()  # parsed once


def test_any_text_survives_the_writer_and_the_reader_exactly():
    items = [("global_sentence", records.GlobalSentence("fr", "welcome", text)) for text in TRICKY[:1]]
    item = records.KnowledgeItem(
        id=1,
        label=TRICKY[2],
        formulations=[("fr", text, True) for text in TRICKY],
        answers=[records.Answer("fr", TRICKY[1], text=TRICKY[2], gui_action=TRICKY[3], template_name=TRICKY[4])],
    )
    document = write(
        ("spaces", None, [("space", records.Space(TRICKY[1], True))]),
        ("knowledgeItems", None, [("knowledge_item", item)]),
        ("globalSentences", None, items),
    )
    assert schema().validate(etree.fromstring(document)), schema().error_log
    found = next(r for r in read(document) if isinstance(r, records.KnowledgeItem))
    assert found.label == TRICKY[2]
    assert [text for _, text, _ in found.formulations] == TRICKY
    answer = found.answers[0]
    assert (answer.space, answer.text, answer.gui_action, answer.template_name) == tuple(TRICKY[1:5])


def test_characters_xml_cannot_carry_are_dropped_on_export():
    document = write(
        ("globalSentences", None, [("global_sentence", records.GlobalSentence("fr", "welcome", "bell\x07 nul\x00 ok"))])
    )
    sentence = next(r for r in read(document) if isinstance(r, records.GlobalSentence))
    assert sentence.text == "bell nul ok"


def test_the_same_records_give_the_same_bytes():
    def once() -> bytes:
        tag = records.Tag(3, "Cartes")
        item = records.KnowledgeItem(id=5, tag=3, event_rules=[{"b": 1, "a": [2, {"d": 3, "c": 4}]}], kind="event")
        return write(("tags", None, [("tag", tag)]), ("knowledgeItems", None, [("knowledge_item", item)]))

    assert once() == once()
    assert b'<eventRules>[{"a":[2,{"c":4,"d":3}],"b":1}]</eventRules>' in once()


def test_empty_elements_are_written_short_and_defaults_left_out():
    item = records.KnowledgeItem(id=1, kind="question", status="draft")
    document = write(("knowledgeItems", None, [("knowledge_item", item)]), ("globalSentences", None, []))
    assert b'<knowledgeItem id="1" kind="question" status="draft"/>' in document
    assert b"<globalSentences/>" in document


def test_the_reader_gives_decision_tree_children_their_parent_and_position():
    document = b"""<knowledgeBase formatVersion="1"><knowledgeItems>
      <knowledgeItem id="10"><children>
        <knowledgeItem id="11"/><knowledgeItem id="12"><children><knowledgeItem id="13"/></children></knowledgeItem>
      </children></knowledgeItem>
      <knowledgeItem id="20"/>
    </knowledgeItems></knowledgeBase>"""
    items = {r.id: r for r in read(document) if isinstance(r, records.KnowledgeItem)}
    assert {i: (r.parent, r.position, r.depth) for i, r in items.items()} == {
        10: (None, 0, 0),
        11: (10, 0, 1),
        12: (10, 1, 1),
        13: (12, 0, 2),
        20: (None, 1, 0),
    }


@pytest.mark.parametrize(
    "document",
    [
        b'<knowledgeBase formatVersion="1"><spaces><space/></spaces></knowledgeBase>',
        b'<knowledgeBase formatVersion="1"><knowledgeItems><knowledgeItem id="0"/></knowledgeItems></knowledgeBase>',
        b'<knowledgeBase formatVersion="1" extra="x"/>',
        b'<knowledgeBase formatVersion="1"><tags><tag id="1" name="a"><oops/></tag></tags></knowledgeBase>',
        b'<knowledgeBase formatVersion="1"><globalSentences><globalSentence language="fr" kind="hello"/>'
        b"</globalSentences></knowledgeBase>",
        b'<knowledgeBase formatVersion="1"><gallery><image name="a"/></gallery></knowledgeBase>',
        b'<knowledgeBase formatVersion="1"><knowledgeItems><knowledgeItem id="1"><answer language="fr" space="x">'
        b"<guiAction>a</guiAction><text>late</text></answer></knowledgeItem></knowledgeItems></knowledgeBase>",
    ],
)
def test_the_reader_refuses_what_the_schema_refuses(document):
    assert not schema().validate(etree.fromstring(document))
    with pytest.raises(InvalidKnowledgeBaseFile) as refused:
        read(document)
    assert refused.value.code == "SCHEMA_VIOLATION"
    assert refused.value.line == 1 and refused.value.column >= 1


def test_image_data_that_is_not_base64_is_refused():
    document = b'<knowledgeBase formatVersion="1"><gallery>\n<image name="a" mediaType="b"><data>@@@</data></image>'
    with pytest.raises(InvalidKnowledgeBaseFile) as refused:
        read(document + b"</gallery></knowledgeBase>")
    assert (refused.value.code, refused.value.line, refused.value.column) == ("INVALID_VALUE", 2, 31)


def test_the_readme_example_is_a_valid_knowledge_base():
    text = DOC.read_text(encoding="utf-8")
    example = re.search(r"```xml\n(<\?xml.*?</knowledgeBase>\n)```", text, re.DOTALL).group(1).encode()
    assert schema().validate(etree.fromstring(example)), schema().error_log
    kinds = {r.kind for r in read(example) if isinstance(r, records.KnowledgeItem)}
    assert kinds == {"question", "complementary", "predefined", "event", "slot"}
