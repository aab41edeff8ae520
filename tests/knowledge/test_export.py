"""GET /bot/knowledgebase/export/{botUUID}/{excludeGalleryContent}: the knowledge base as a streamed
XML download, valid against the schema, one export at a time per user."""

import re
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.core.signals import request_finished
from django.db import close_old_connections, connection
from django.test import AsyncClient
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from lxml import etree

from accounts.models import ApiToken
from knowledge.exchange.exports import ExportSlot, SlotStream
from knowledge.models import Formulation, KnowledgeItem
from knowledge.xml import schema

from .conftest import PHOTO, build_rich_bot

pytestmark = pytest.mark.django_db


def url(bot, exclude="false") -> str:
    return f"/servlet/api/bot/knowledgebase/export/{bot.uuid}/{exclude}"


def download(response) -> bytes:
    assert response.status_code == 200, response.content
    assert response.streaming
    return b"".join(response.streaming_content)


def test_the_export_is_an_xml_download_named_after_the_bot_and_the_date(client, rich_bot, personas):
    response = client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token)
    content = download(response)
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == (
        f'attachment; filename="Rich bot - knowledge base - {today}.xml"; '
        f"filename*=UTF-8''Rich%20bot%20-%20knowledge%20base%20-%20{today}.xml"
    )
    assert content.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<knowledgeBase formatVersion="1"')


def test_the_export_validates_against_the_schema_and_holds_everything(client, rich_bot, personas):
    document = etree.fromstring(download(client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token)))
    assert schema().validate(document), schema().error_log
    assert [lang.get("code") for lang in document.iterfind("languages/language")] == ["fr", "en"]
    assert document.find("languages").get("default") == "fr"
    assert [(s.get("name"), s.get("default")) for s in document.iterfind("spaces/space")] == [
        ("Defaut", "true"),
        ("Privé & co", None),
        ("Pro", None),
    ]
    assert [t.get("name") for t in document.iterfind("tags/tag/tag/tag")] == ["Premium <gold>"]
    kinds = [item.get("kind") for item in document.iter("knowledgeItem")]
    assert sorted(set(kinds)) == ["complementary", "event", "predefined", "question", "slot"]
    tree = document.find("knowledgeItems/knowledgeItem[@label='Ouvrir un compte']")
    assert [c.get("label") for c in tree.iterfind("children/knowledgeItem")] == ["Pour moi", "Entreprise"]
    assert tree.find("children/knowledgeItem").get("directAccess") == "true"
    assert tree.find("children/knowledgeItem/children/knowledgeItem").get("label") == "SARL"
    pro = document.find(".//answer[@space='Pro']")
    assert pro.get("livechat") == "true"
    assert pro.find("template").get("name") == "dydu_quick_reply_001"
    assert pro.find("guiAction").text == "javascript:dyduLivechat()"
    assert '"width":400' in pro.find("sidebar").text
    assert document.find(".//formulation[@rewordable='false']").text == "carte égarée"
    assert document.find(".//knowledgeItem[@kind='slot']").get("slotVariable") == "part"
    assert '"type":"Container"' in document.find(".//eventRules").text
    complement = document.find(".//complement[@position='before']")
    assert len(complement.findall("targetTag")) == 2
    assert document.find(".//complement[@position='instead']").get("wholeKnowledgeBase") == "true"
    assert [g.get("kind") for g in document.iterfind("globalSentences/globalSentence")] == ["misunderstood", "welcome"]
    images = document.findall("gallery/image")
    assert [i.get("name") for i in images] == ["logo.png", 'photo "d\'été".bin']
    assert len(images[1].findall("data")) == 2  # more than 1 MiB: several base64 pieces
    assert document.find("preferences") is None  # preferences travel in bot data files only
    # The formulations' computed vectors stay in the database.
    assert b"vector" not in etree.tostring(document)


def test_a_bot_name_beyond_ascii_gets_both_download_names(client, demo_bot, personas):
    response = client.get(url(demo_bot, "true"), HTTP_AUTHORIZATION=personas.alice.token)
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == (
        f'attachment; filename="Clara - Banque Exemple - knowledge base - {today}.xml"; '
        f"filename*=UTF-8''Clara%20%E2%80%94%20Banque%20Exemple%20-%20knowledge%20base%20-%20{today}.xml"
    )
    download(response)


def test_exclude_gallery_content_leaves_the_images_out(client, rich_bot, personas):
    content = download(client.get(url(rich_bot, "true"), HTTP_AUTHORIZATION=personas.alice.token))
    assert b"<gallery" not in content
    assert b"<gallery" in download(client.get(url(rich_bot, "FALSE"), HTTP_AUTHORIZATION=personas.alice.token))
    without_segment = f"/api/bot/knowledgebase/export/{rich_bot.uuid}/"
    assert b"<gallery" in download(client.get(without_segment, HTTP_AUTHORIZATION=personas.alice.token))


def test_a_bad_boolean_path_segment_is_400(client, rich_bot, personas):
    response = client.get(url(rich_bot, "maybe"), HTTP_AUTHORIZATION=personas.alice.token)
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_FIELD"
    assert "excludeGalleryContent" in response.json()["error"]


def test_who_may_export(client, rich_bot, personas, reader_token):
    assert client.get(url(rich_bot)).json()["code"] == "MISSING_CREDENTIALS"
    ApiToken.objects.filter(user=personas.bob.user).update(expires_at=timezone.now() - timedelta(minutes=1))
    response = client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.bob.token)
    assert (response.status_code, response.json()["code"]) == (401, "TOKEN_EXPIRED")
    response = client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.charlie.token)
    assert (response.status_code, response.json()["code"]) == (403, "FORBIDDEN")
    # A reader may read the knowledge base.
    assert download(client.get(url(rich_bot), HTTP_AUTHORIZATION=reader_token))
    response = client.get(
        "/servlet/api/bot/knowledgebase/export/0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11/false",
        HTTP_AUTHORIZATION=personas.alice.token,
    )
    assert (response.status_code, response.json()["code"]) == (404, "UNKNOWN_BOT")


def test_one_export_at_a_time_per_user(client, rich_bot, personas):
    running = client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token)
    assert running.status_code == 200
    second = client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token)
    assert (second.status_code, second.json()["code"]) == (429, "EXPORT_RUNNING")
    assert "one export at a time" in second.json()["error"]
    # Another user is not held back.
    assert download(client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.bob.token))
    # Once the first download ends (the test client closes the response then), the slot is free again.
    download(running)
    assert download(client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token))


def test_the_slot_is_freed_when_the_client_goes_away(client, rich_bot, personas):
    response = client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token)
    next(iter(response.streaming_content))  # the client reads a little, then disconnects
    # What a server does then; the test database connection must stay open, as the test client keeps it.
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)
    assert ExportSlot(personas.alice.user.pk).acquire()


def test_the_slot_is_freed_by_the_last_chunk_before_the_server_ends_the_response(personas):
    """A client that starts its next export the moment the previous download ended is not refused: the
    slot is freed when the stream runs out, before the server sends the end of the response (and so before
    it closes the stream)."""
    slot = ExportSlot(personas.alice.user.pk)
    assert slot.acquire()
    stream = SlotStream(iter([b"<knowledgebase>", b"</knowledgebase>"]), slot)
    assert b"".join(stream) == b"<knowledgebase></knowledgebase>"
    assert ExportSlot(personas.alice.user.pk).acquire()
    stream.close()  # what the server does afterwards frees nothing that is not the stream's own
    assert not ExportSlot(personas.alice.user.pk).acquire()


def test_the_export_streams_with_a_query_count_that_does_not_grow_with_small_bots(client, personas):
    def queries_for(items: int) -> int:
        bot = build_rich_bot(name=f"Bot of {items}", account=personas.account)
        first = KnowledgeItem.objects.filter(bot=bot).first()
        for index in range(items):
            item = KnowledgeItem.objects.create(bot=bot, label=f"extra {index}", position=100 + index)
            Formulation.objects.create(item=item, language="fr", text=f"question {index}")
        assert first is not None
        with CaptureQueriesContext(connection) as queries:
            download(client.get(url(bot), HTTP_AUTHORIZATION=personas.alice.token))
        return len(queries)

    queries_for(1)  # the token's first use is recorded once: not part of the comparison
    # Items are read in batches of 900 with their formulations and answers: no query per item.
    assert queries_for(5) == queries_for(300)


@pytest.mark.django_db(transaction=True)
def test_the_export_streams_under_asgi_too(rich_bot, personas, client, recwarn):
    expected = download(client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token))

    async def fetch():
        response = await AsyncClient().get(url(rich_bot), headers={"Authorization": personas.bob.token})
        assert response.status_code == 200
        return [chunk async for chunk in response.streaming_content]

    chunks = async_to_sync(fetch)()
    assert b"".join(chunks) == expected
    # Django gathers a synchronous stream in memory under ASGI, and says so; ours is asynchronous.
    assert not [w for w in recwarn if "must consume" in str(w.message)]
    assert len(chunks) > 1  # the photo alone fills more than one chunk
    assert re.search(rb"<data>[A-Za-z0-9+/=]+</data>", expected)
    assert len(PHOTO) > 1024 * 1024
