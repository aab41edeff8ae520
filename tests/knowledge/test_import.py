"""POST /bot/knowledgebase/import/{botUUID}: a file replaces the bot's knowledge base in one
transaction; any refusal names line, column and reason and changes nothing."""

import io
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import ApiToken
from bots.models import Bot
from knowledge.api.uploads import LimitedUploadHandler
from knowledge.exchange import export_knowledge_base, import_knowledge_base
from knowledge.models import GalleryImage, KnowledgeItem

from .conftest import upload, whole_knowledge_base

pytestmark = pytest.mark.django_db

HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n<knowledgeBase formatVersion="1">\n'


def url(bot) -> str:
    return f"/servlet/api/bot/knowledgebase/import/{bot.uuid}"


def small_file(body: str) -> bytes:
    """A knowledge base with two languages, two spaces and one tag around `body` (its items)."""
    return (
        HEADER
        + '  <languages default="fr">\n    <language code="fr"/>\n    <language code="en"/>\n  </languages>\n'
        + '  <spaces>\n    <space name="Defaut" default="true"/>\n    <space name="Pro"/>\n  </spaces>\n'
        + '  <tags>\n    <tag id="7" name="Cartes"/>\n  </tags>\n'
        + f"  <knowledgeItems>\n{body}  </knowledgeItems>\n</knowledgeBase>\n"
    ).encode()


GOOD_ITEM = (
    '    <knowledgeItem id="1" kind="question" status="published" tag="7">\n'
    '      <formulation language="fr">Comment bloquer ma carte ?</formulation>\n'
    '      <answer language="fr" space="Defaut"><text>Appelez le 0800.</text></answer>\n'
    "    </knowledgeItem>\n"
)


def refused(client, bot, token, content: bytes, status: int = 400) -> dict:
    before = whole_knowledge_base(bot)
    response = upload(client, url(bot), content, token)
    assert response.status_code == status, response.content
    assert whole_knowledge_base(bot) == before
    body = response.json()
    assert set(body) >= {"error", "code"}
    return body


def test_an_import_replaces_the_knowledge_base_and_reports_counts(client, rich_bot, personas):
    response = upload(client, url(rich_bot), small_file(GOOD_ITEM), personas.bob.token)
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["botUUID"] == str(rich_bot.uuid)
    assert report["imported"] == {
        "tags": 1,
        "matchingGroups": 0,
        "knowledgeItems": {"total": 1, "question": 1, "complementary": 0, "predefined": 0, "event": 0, "slot": 0},
        "formulations": 1,
        "answers": 1,
        "globalSentences": 0,
        "languages": 2,
        "spaces": 2,
    }
    assert isinstance(report["durationMs"], int) and report["durationMs"] >= 0
    item = KnowledgeItem.objects.get(bot=rich_bot)
    assert item.tag.name == "Cartes"
    assert item.answers.get().space.name == "Defaut"
    assert list(rich_bot.spaces.order_by("name").values_list("name", flat=True)) == ["Defaut", "Pro"]
    assert rich_bot.global_sentences.count() == 0
    # The file has no gallery: the bot's gallery stays.
    assert GalleryImage.objects.filter(bot=rich_bot).count() == 2


def test_the_import_bumps_the_knowledge_version_once(client, rich_bot, personas):
    before = Bot.objects.get(pk=rich_bot.pk).knowledge_version
    upload(client, url(rich_bot), small_file(GOOD_ITEM), personas.alice.token)
    # The spaces section renames nothing but drops "Privé & co" (one signal) and the import bumps once.
    assert Bot.objects.get(pk=rich_bot.pk).knowledge_version - before <= 2
    assert Bot.objects.get(pk=rich_bot.pk).knowledge_version > before


def test_any_single_file_field_is_accepted_and_an_xml_body_too(client, rich_bot, personas):
    response = upload(client, url(rich_bot), small_file(GOOD_ITEM), personas.alice.token, field="upload")
    assert response.status_code == 200, response.content
    response = client.post(
        url(rich_bot) + "/",
        small_file(GOOD_ITEM),
        content_type="application/xml",
        HTTP_AUTHORIZATION=personas.alice.token,
    )
    assert response.status_code == 200, response.content
    assert response.json()["imported"]["knowledgeItems"]["total"] == 1


def test_missing_or_several_files_are_refused(client, rich_bot, personas):
    before = whole_knowledge_base(rich_bot)
    response = client.post(url(rich_bot), {"note": "no file"}, HTTP_AUTHORIZATION=personas.alice.token)
    assert (response.status_code, response.json()["code"]) == (400, "MISSING_FIELD")
    response = client.post(url(rich_bot), "", content_type="application/xml", HTTP_AUTHORIZATION=personas.alice.token)
    assert (response.status_code, response.json()["code"]) == (400, "MISSING_FIELD")
    first, second = (small_file(GOOD_ITEM), small_file(""))
    files = {"a": io.BytesIO(first), "b": io.BytesIO(second)}
    response = client.post(url(rich_bot), files, HTTP_AUTHORIZATION=personas.alice.token)
    assert (response.status_code, response.json()["code"]) == (400, "SEVERAL_FILES")
    response = client.post(url(rich_bot), "x=1", content_type="text/plain", HTTP_AUTHORIZATION=personas.alice.token)
    assert (response.status_code, response.json()["code"]) == (400, "UNSUPPORTED_MEDIA_TYPE")
    assert whole_knowledge_base(rich_bot) == before


def test_who_may_import(client, rich_bot, personas, reader_token):
    content = small_file(GOOD_ITEM)
    assert refused(client, rich_bot, None, content, 401)["code"] == "MISSING_CREDENTIALS"
    assert refused(client, rich_bot, "dyt_unknown", content, 401)["code"] == "INVALID_CREDENTIALS"
    ApiToken.objects.filter(user=personas.bob.user).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert refused(client, rich_bot, personas.bob.token, content, 401)["code"] == "TOKEN_EXPIRED"
    assert refused(client, rich_bot, personas.charlie.token, content, 403)["code"] == "FORBIDDEN"
    assert refused(client, rich_bot, reader_token, content, 403)["code"] == "FORBIDDEN"


def test_an_unknown_bot_is_404(client, personas):
    response = upload(
        client,
        "/servlet/api/bot/knowledgebase/import/0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11",
        b"<x/>",
        personas.alice.token,
    )
    assert (response.status_code, response.json()["code"]) == (404, "UNKNOWN_BOT")
    response = upload(client, "/api/bot/knowledgebase/import/not-a-uuid", b"<x/>", personas.alice.token)
    assert response.status_code == 404


def test_a_file_that_is_not_well_formed(client, rich_bot, personas):
    broken = small_file(GOOD_ITEM).replace(b"</answer>", b"</answr>")
    error = refused(client, rich_bot, personas.alice.token, broken)
    assert error["code"] == "MALFORMED_XML"
    assert error["line"] == 17
    assert error["column"] > 1
    assert "mismatch" in error["reason"]
    assert error["error"].startswith("Line 17, column ")


def test_a_schema_violation_names_line_column_and_reason(client, rich_bot, personas):
    bad = GOOD_ITEM.replace('status="published"', 'status="live"')
    error = refused(client, rich_bot, personas.alice.token, small_file(bad))
    assert error["code"] == "SCHEMA_VIOLATION"
    assert (error["line"], error["column"]) == (15, 43)  # where the status attribute starts
    assert "status" in error["reason"] and "'live'" in error["reason"]


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (('tag="7"', 'tag="8"'), 15, "Tag 8 is not defined"),
        (('space="Defaut"', 'space="Nowhere"'), 17, "Space 'Nowhere' is not defined"),
        (('<formulation language="fr"', '<formulation language="de"'), 16, "Language 'de' is not one of"),
    ],
)
def test_a_dangling_reference_is_refused(client, rich_bot, personas, change, line, message):
    error = refused(client, rich_bot, personas.alice.token, small_file(GOOD_ITEM.replace(*change)))
    assert error["code"] == "DANGLING_REFERENCE"
    assert error["line"] == line
    assert message in error["reason"]


def test_a_complement_targeting_an_undefined_tag_is_refused(client, rich_bot, personas):
    item = (
        '    <knowledgeItem id="2" kind="complementary">\n'
        '      <complement position="after"><targetTag ref="99"/></complement>\n'
        "    </knowledgeItem>\n"
    )
    error = refused(client, rich_bot, personas.alice.token, small_file(item))
    assert (error["code"], error["line"], error["column"]) == ("DANGLING_REFERENCE", 16, 47)


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (GOOD_ITEM + GOOD_ITEM, "DUPLICATE", "Knowledge item id 1 is used twice"),
        (
            '    <knowledgeItem id="3" kind="event"><eventRules>{"not": "a list"}</eventRules></knowledgeItem>\n',
            "INVALID_VALUE",
            "eventRules must hold a JSON array",
        ),
        (
            '    <knowledgeItem id="3" kind="event"><eventRules>[{"type": </eventRules></knowledgeItem>\n',
            "INVALID_VALUE",
            "eventRules must hold a JSON array",
        ),
        ('    <knowledgeItem id="3" slotVariable="x"/>\n', "INVALID_VALUE", "slotVariable is only for kind 'slot'"),
        (
            '    <knowledgeItem id="3"><answer language="fr" space="Defaut"/><answer language="fr" space="defaut"/>'
            "</knowledgeItem>\n",
            "DUPLICATE",
            "Two answers for language 'fr' and space 'defaut'",
        ),
        ('    <tag id="9" name="x"/>\n', "SCHEMA_VIOLATION", "'tag' is not expected in knowledgeItems"),
        ('    <knowledgeItem id="3"/>\n    stray text\n', "SCHEMA_VIOLATION", "Text 'stray text' is not allowed"),
    ],
)
def test_rules_the_schema_cannot_say_are_checked(client, rich_bot, personas, body, code, message):
    error = refused(client, rich_bot, personas.alice.token, small_file(body))
    assert error["code"] == code
    assert message in error["reason"]
    assert error["line"] >= 15


def test_sections_out_of_order_or_a_wrong_root(client, rich_bot, personas):
    swapped = HEADER + "  <tags/>\n  <languages default='fr'/>\n</knowledgeBase>\n"
    error = refused(client, rich_bot, personas.alice.token, swapped.encode())
    assert (error["code"], error["line"]) == ("SCHEMA_VIOLATION", 4)
    assert "must come before 'tags'" in error["reason"]
    gallery = b'<gallery formatVersion="1"><image name="a.png" mediaType="image/png"/></gallery>'
    assert refused(client, rich_bot, personas.alice.token, gallery)["code"] == "WRONG_DOCUMENT"
    future = HEADER.replace('formatVersion="1"', 'formatVersion="2"') + "</knowledgeBase>"
    error = refused(client, rich_bot, personas.alice.token, future.encode())
    assert "Format version '2' is not supported" in error["reason"]
    assert refused(client, rich_bot, personas.alice.token, b"")["code"] == "EMPTY_FILE"
    assert refused(client, rich_bot, personas.alice.token, b"not xml at all")["code"] == "MALFORMED_XML"


@override_settings(KB_UPLOAD_MAX_BYTES=2000)
def test_an_upload_over_the_limit_is_413_before_it_is_read(client, rich_bot, personas):
    content = small_file(GOOD_ITEM * 0 + "<!--" + "x" * 3000 + "-->\n")
    error = refused(client, rich_bot, personas.alice.token, content, 413)
    assert error["code"] == "TOO_LARGE"
    assert error["maxBytes"] == 2000
    response = client.post(
        url(rich_bot), content, content_type="application/xml", HTTP_AUTHORIZATION=personas.alice.token
    )
    assert response.status_code == 413


@override_settings(KB_UPLOAD_MAX_BYTES=1000)
def test_the_upload_is_counted_while_it_streams(rich_bot):
    # A client may declare a small Content-Length and send more, or send chunks: the handler counts.
    handler = LimitedUploadHandler()
    handler.new_file("file", "kb.xml", "application/xml", None)
    handler.receive_data_chunk(b"x" * 600, 0)
    with pytest.raises(Exception) as caught:
        handler.receive_data_chunk(b"x" * 600, 600)
    assert caught.value.status == 413


def test_the_import_is_all_or_nothing_when_the_database_refuses(client, rich_bot, personas, monkeypatch):
    # A failure in the middle of writing (here: the answers' rows) rolls everything back.
    from knowledge.exchange import rows

    original = rows.RowSink.flush

    def failing_flush(self):
        if "answer" in self.table:
            raise RuntimeError("disk full")
        return original(self)

    monkeypatch.setattr(rows.RowSink, "flush", failing_flush)
    before = whole_knowledge_base(rich_bot)
    with pytest.raises(RuntimeError):
        import_knowledge_base(rich_bot, io.BytesIO(small_file(GOOD_ITEM)))
    assert whole_knowledge_base(rich_bot) == before


def test_an_empty_knowledge_base_file_empties_the_knowledge(client, rich_bot, personas):
    response = upload(client, url(rich_bot), (HEADER + "</knowledgeBase>").encode(), personas.alice.token)
    assert response.status_code == 200
    assert not KnowledgeItem.objects.filter(bot=rich_bot).exists()
    # No languages or spaces section: the bot keeps its own.
    assert rich_bot.spaces.count() == 3
    assert b"<knowledgeItems/>" in b"".join(export_knowledge_base(rich_bot))
