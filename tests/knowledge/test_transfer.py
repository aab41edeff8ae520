"""Transfer Bot Data: the gallery on its own (export, import), and bot data (knowledge base and
preferences) exported from one bot and imported into another, atomically."""

import pytest

from bots.models import Bot
from knowledge.models import GalleryImage, KnowledgeItem, MatchingGroup, Tag
from preferences.models import BotPreference

from .conftest import PHOTO, PIXEL, build_rich_bot, upload, whole_knowledge_base

pytestmark = pytest.mark.django_db


def download(response) -> bytes:
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content)


def test_the_gallery_travels_on_its_own(client, rich_bot, personas):
    gallery = download(
        client.get(f"/servlet/api/bot/gallery/export/{rich_bot.uuid}", HTTP_AUTHORIZATION=personas.alice.token)
    )
    assert gallery.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<gallery formatVersion="1"')
    assert b"<knowledgeItems" not in gallery
    other = Bot.objects.create(name="Other", account=personas.account)
    GalleryImage.objects.create(bot=other, name="old.gif", media_type="image/gif", content=b"GIF89a")
    response = upload(client, f"/servlet/api/bot/gallery/import/{other.uuid}", gallery, personas.bob.token)
    assert response.status_code == 200, response.content
    assert response.json()["imported"] == {"galleryImages": 2}
    images = dict(GalleryImage.objects.filter(bot=other).values_list("name", "content"))
    assert {name: bytes(content) for name, content in images.items()} == {
        "logo.png": PIXEL,
        'photo "d\'été".bin': PHOTO,
    }


def test_a_knowledge_base_file_is_not_a_gallery_file(client, rich_bot, personas):
    before = whole_knowledge_base(rich_bot)
    knowledge = download(
        client.get(
            f"/servlet/api/bot/knowledgebase/export/{rich_bot.uuid}/false", HTTP_AUTHORIZATION=personas.alice.token
        )
    )
    response = upload(client, f"/servlet/api/bot/gallery/import/{rich_bot.uuid}", knowledge, personas.alice.token)
    assert (response.status_code, response.json()["code"]) == (400, "WRONG_DOCUMENT")
    assert response.json()["line"] == 2
    assert whole_knowledge_base(rich_bot) == before


def test_gallery_calls_check_who_asks(client, rich_bot, personas, reader_token):
    export = f"/servlet/api/bot/gallery/export/{rich_bot.uuid}"
    assert client.get(export).status_code == 401
    assert client.get(export, HTTP_AUTHORIZATION=personas.charlie.token).status_code == 403
    assert download(client.get(export, HTTP_AUTHORIZATION=reader_token))
    response = upload(client, f"/servlet/api/bot/gallery/import/{rich_bot.uuid}", b"<gallery/>", reader_token)
    assert response.status_code == 403


def test_bot_data_moves_knowledge_and_preferences_into_another_bot(client, rich_bot, personas):
    data = download(
        client.get(f"/servlet/api/bot/data/export/{rich_bot.uuid}/false", HTTP_AUTHORIZATION=personas.alice.token)
    )
    assert b'<preference name="bot.servicename">Banque Exemple</preference>' in data
    target = Bot.objects.create(name="Copy", account=personas.account)
    response = upload(client, f"/servlet/api/bot/data/import/{target.uuid}", data, personas.alice.token)
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["imported"]["preferences"] == 2
    assert report["imported"]["knowledgeItems"]["total"] == 11
    # The source bot still owns its ids and uuids: the copy got fresh ones.
    assert report["idsKept"] == {"tags": False, "knowledgeItems": False, "matchingGroups": False}
    source_ids = set(KnowledgeItem.objects.filter(bot=rich_bot).values_list("id", flat=True))
    assert not source_ids & set(KnowledgeItem.objects.filter(bot=target).values_list("id", flat=True))
    # The "No" group preference follows the group to its new uuid.
    copied_no = MatchingGroup.objects.get(bot=target, name="Non")
    preferences = dict(BotPreference.objects.filter(bot=target).values_list("name", "value"))
    assert preferences == {"bot.servicename": "Banque Exemple", "bot.no.group.uuid": str(copied_no.uuid)}
    # The decision tree and the complementary answer's tags point inside the copy.
    child = KnowledgeItem.objects.get(bot=target, label="SARL")
    assert child.parent.parent.label == "Ouvrir un compte" and child.parent.bot_id == target.pk
    reminder = KnowledgeItem.objects.get(bot=target, label="Rappel sécurité")
    assert {tag.bot_id for tag in reminder.complement_tags.all()} == {target.pk}
    assert Tag.objects.filter(bot=target).count() == 4


def test_a_refused_preference_rolls_the_whole_bot_data_import_back(client, rich_bot, personas):
    target = build_rich_bot(name="Target", account=personas.account)
    before = whole_knowledge_base(target)
    data = download(
        client.get(f"/servlet/api/bot/data/export/{rich_bot.uuid}/true", HTTP_AUTHORIZATION=personas.alice.token)
    )
    bad = data.replace(b">Banque Exemple<", b">   <")
    response = upload(client, f"/servlet/api/bot/data/import/{target.uuid}", bad, personas.alice.token)
    assert response.status_code == 400, response.content
    error = response.json()
    assert error["code"] == "INVALID_VALUE"
    assert "bot.servicename" in error["reason"]
    lines = bad.split(b"\n")
    assert error["line"] == 1 + next(n for n, line in enumerate(lines) if b'name="bot.servicename"' in line)
    assert whole_knowledge_base(target) == before


def test_bot_data_needs_the_right_to_change_preferences(client, rich_bot, personas):
    data = download(
        client.get(f"/servlet/api/bot/data/export/{rich_bot.uuid}/true", HTTP_AUTHORIZATION=personas.alice.token)
    )
    # Bob is an editor: he may import a knowledge base, not change preferences.
    response = upload(client, f"/servlet/api/bot/data/import/{rich_bot.uuid}", data, personas.bob.token)
    assert (response.status_code, response.json()["code"]) == (403, "FORBIDDEN")
    response = client.get(
        f"/servlet/api/bot/data/export/{rich_bot.uuid}/maybe", HTTP_AUTHORIZATION=personas.alice.token
    )
    assert response.status_code == 400


def test_a_knowledge_base_import_leaves_preferences_alone(client, rich_bot, personas):
    data = download(
        client.get(f"/servlet/api/bot/data/export/{rich_bot.uuid}/true", HTTP_AUTHORIZATION=personas.alice.token)
    )
    changed = data.replace(b">Banque Exemple<", b">Another name<")
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{rich_bot.uuid}", changed, personas.bob.token)
    assert response.status_code == 200
    assert "preferences" not in response.json()["imported"]
    assert BotPreference.objects.get(bot=rich_bot, name="bot.servicename").value == "Banque Exemple"
