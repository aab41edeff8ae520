"""Hostile files sent to the import servlet: refused with a JSON error naming where and why, no
entity expanded, nothing fetched, and the bot's knowledge base exactly as before."""

import io

import pytest

from knowledge.exchange import export_knowledge_base
from knowledge.xml import prolog, reader
from knowledge.xml.errors import InvalidKnowledgeBaseFile

from .conftest import attack, upload, whole_knowledge_base

pytestmark = pytest.mark.django_db


def import_url(bot) -> str:
    return f"/servlet/api/bot/knowledgebase/import/{bot.uuid}"


def refused(client, bot, token, content: bytes, status: int = 400) -> dict:
    before = whole_knowledge_base(bot)
    response = upload(client, import_url(bot), content, token)
    assert response.status_code == status, response.content
    assert whole_knowledge_base(bot) == before
    return response.json()


@pytest.mark.parametrize("name", ["billion_laughs.xml", "quadratic_blowup.xml", "xxe_file.xml"])
def test_entity_attacks_are_refused_before_any_expansion(client, rich_bot, personas, name):
    error = refused(client, rich_bot, personas.alice.token, attack(name))
    assert error["code"] == "FORBIDDEN_XML"
    assert "DOCTYPE is not allowed" in error["error"]
    assert (error["line"], error["column"]) == (2, 1)


@pytest.mark.parametrize("name", ["xxe_network.xml", "xxe_parameter_entity.xml", "external_dtd.xml"])
def test_network_attacks_are_refused_and_nothing_is_fetched(client, rich_bot, personas, trap, name):
    error = refused(client, rich_bot, personas.alice.token, attack(name, trap))
    assert error["code"] == "FORBIDDEN_XML"
    assert trap.hits == []


def test_xinclude_is_never_processed(client, rich_bot, personas, trap):
    error = refused(client, rich_bot, personas.alice.token, attack("xinclude.xml", trap))
    assert error["code"] == "SCHEMA_VIOLATION"
    assert error["line"] == 4
    assert trap.hits == []


def test_a_remote_schema_location_is_ignored(client, rich_bot, personas, trap):
    response = upload(client, import_url(rich_bot), attack("schema_location.xml", trap), personas.alice.token)
    assert response.status_code == 200, response.content
    assert trap.hits == []
    assert list(rich_bot.global_sentences.values_list("text", flat=True)) == [
        "A schema location never makes the server fetch anything."
    ]


def test_deep_nesting_is_refused(client, rich_bot, personas):
    error = refused(client, rich_bot, personas.alice.token, attack("deep_nesting.xml"))
    assert error["code"] == "TOO_DEEP"
    assert error["line"] == 2


def test_a_decision_tree_deeper_than_the_limit_is_refused(client, rich_bot, personas):
    depth = reader.MAX_NESTING + 1
    opening = "".join(f'<knowledgeItem id="{n + 1}"><children>' for n in range(depth))
    closing = "</children></knowledgeItem>" * depth
    content = f'<knowledgeBase formatVersion="1"><knowledgeItems>{opening}{closing}</knowledgeItems></knowledgeBase>'
    error = refused(client, rich_bot, personas.alice.token, content.encode())
    assert error["code"] == "TOO_DEEP"
    assert f"deeper than {reader.MAX_NESTING} levels" in error["error"]


def test_an_item_holding_too_many_elements_is_refused_early(client, rich_bot, personas, monkeypatch):
    monkeypatch.setattr(reader, "MAX_PENDING_ELEMENTS", 500)
    formulations = '<formulation language="fr">x</formulation>\n' * 1000
    content = (
        '<knowledgeBase formatVersion="1">\n<knowledgeItems>\n<knowledgeItem id="1">\n'
        f"{formulations}</knowledgeItem>\n</knowledgeItems>\n</knowledgeBase>"
    )
    error = refused(client, rich_bot, personas.alice.token, content.encode())
    assert error["code"] == "TOO_BIG"
    assert error["line"] == 4 + 500 - 4 + 1  # the element that went over the limit


def test_a_doctype_without_entities_is_refused_too(client, rich_bot, personas):
    content = b'<?xml version="1.0"?>\n\n<!DOCTYPE knowledgeBase>\n<knowledgeBase formatVersion="1"/>'
    error = refused(client, rich_bot, personas.alice.token, content)
    assert (error["code"], error["line"], error["column"]) == ("FORBIDDEN_XML", 3, 1)


# A DOCTYPE is refused where it starts, from the bytes before it (knowledge/xml/prolog.py): whatever its
# internal subset holds, the parser never reads it, so a broken or huge subset is FORBIDDEN_XML too, never
# MALFORMED_XML or TOO_BIG.
DOCTYPES = {
    "unclosed internal subset": (b'<!DOCTYPE kb [<!ENTITY a "x">\n<knowledgeBase formatVersion="1"/>', (1, 1)),
    "malformed entity declaration": (b'<!DOCTYPE kb [<!ENTITY a >]>\n<knowledgeBase formatVersion="1"/>', (1, 1)),
    "entity over libxml2's length limit": (
        b'<!DOCTYPE kb [<!ENTITY a "' + b"x" * (11 * 1024 * 1024) + b'">]>\n<knowledgeBase formatVersion="1"/>',
        (1, 1),
    ),
    "attribute default made of entities": (
        b'<!DOCTYPE kb [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">'
        b'<!ATTLIST knowledgeBase x CDATA "&b;">]>\n<knowledgeBase formatVersion="1"/>',
        (1, 1),
    ),
    "parameter entity": (
        b'<!DOCTYPE kb [<!ENTITY % p "<!ENTITY a \'x\'>"> %p;]>\n<knowledgeBase formatVersion="1">&a;</knowledgeBase>',
        (1, 1),
    ),
    "after a declaration, a comment and a processing instruction": (
        b'<?xml version="1.0"?>\n<!-- <!DOCTYPE in a comment> -->\n<?pi x?>  <!DOCTYPE kb [<!ENTITY a >]>\n'
        b'<knowledgeBase formatVersion="1"/>',
        (3, 11),
    ),
    "in UTF-16": (
        '<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE kb [<!ENTITY a >]>\n<knowledgeBase/>'.encode("utf-16"),
        (2, 1),
    ),
}


@pytest.mark.parametrize("name", DOCTYPES)
def test_any_doctype_is_refused_before_its_declarations_are_read(client, rich_bot, personas, name):
    content, (line, column) = DOCTYPES[name]
    error = refused(client, rich_bot, personas.alice.token, content)
    assert (error["code"], error["line"], error["column"]) == ("FORBIDDEN_XML", line, column)
    assert "DOCTYPE is not allowed" in error["error"]


class CountingFile(io.BytesIO):
    """A file that remembers how far it was read."""

    furthest = 0

    def read(self, size=-1):
        piece = super().read(size)
        self.furthest = max(self.furthest, self.tell())
        return piece


def test_a_doctype_is_refused_from_the_head_of_the_file_not_after_reading_its_subset():
    content, _ = DOCTYPES["entity over libxml2's length limit"]
    source = CountingFile(content)
    with pytest.raises(InvalidKnowledgeBaseFile) as refusal:
        list(reader.KnowledgeBaseReader(source))
    assert refusal.value.code == "FORBIDDEN_XML"
    assert source.furthest <= prolog.READ_BYTES  # of an 11 MB file


def test_a_long_comment_before_the_root_is_not_a_doctype(client, rich_bot, personas):
    exported = b"".join(export_knowledge_base(rich_bot, gallery=True))
    declaration, _, rest = exported.partition(b"\n")
    comment = b"<!-- " + b"<!DOCTYPE x> - " * 20_000 + b"-->\n"  # 300 KB: several of the prolog's reads
    response = upload(client, import_url(rich_bot), declaration + b"\n" + comment + rest, personas.alice.token)
    assert response.status_code == 200, response.content
