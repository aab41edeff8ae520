"""DELETE /bot/knowledgebase/delete/{botUUID}/{excludeGalleryContent}: the bot's knowledge goes (its
gallery too unless excluded), the answer says what went, and matching forgets it at once."""

import pytest

from bots.models import Bot
from dialogs.models import Interaction
from knowledge.models import Formulation, GalleryImage, KnowledgeItem, Tag

from .conftest import whole_knowledge_base

pytestmark = pytest.mark.django_db


def url(bot, exclude="false") -> str:
    return f"/servlet/api/bot/knowledgebase/delete/{bot.uuid}/{exclude}"


def test_delete_reports_what_it_deleted(client, rich_bot, personas):
    version = rich_bot.knowledge_version
    response = client.delete(url(rich_bot), HTTP_AUTHORIZATION=personas.bob.token)
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["deleted"] == {
        "tags": 4,
        "matchingGroups": 3,
        "knowledgeItems": {"total": 11, "question": 6, "complementary": 2, "predefined": 1, "event": 1, "slot": 1},
        "formulations": 9,
        "answers": 12,
        "globalSentences": 2,
        "galleryImages": 2,
    }
    assert not KnowledgeItem.objects.filter(bot=rich_bot).exists()
    assert not Formulation.objects.filter(item__bot=rich_bot).exists()
    assert not Tag.objects.filter(bot=rich_bot).exists()
    assert not GalleryImage.objects.filter(bot=rich_bot).exists()
    # Languages and spaces are the bot's configuration: they stay.
    assert rich_bot.spaces.count() == 3 and rich_bot.languages.count() == 2
    assert Bot.objects.get(pk=rich_bot.pk).knowledge_version == version + 1


def test_exclude_gallery_content_keeps_the_images(client, rich_bot, personas):
    response = client.delete(url(rich_bot, "true"), HTTP_AUTHORIZATION=personas.alice.token)
    assert response.status_code == 200
    assert "galleryImages" not in response.json()["deleted"]
    assert GalleryImage.objects.filter(bot=rich_bot).count() == 2
    assert not KnowledgeItem.objects.filter(bot=rich_bot).exists()


def test_other_apps_rows_are_unlinked_not_lost(client, demo_bot, personas, chatbox, settings):
    settings.MATCHING_EMBEDDINGS = False
    values = chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert values["typeResponse"] == "DMUnderstoodQuestion"
    interaction = Interaction.objects.filter(bot=demo_bot).exclude(knowledge_item=None).get()
    assert client.delete(url(demo_bot), HTTP_AUTHORIZATION=personas.alice.token).status_code == 200
    interaction.refresh_from_db()
    assert interaction.knowledge_item is None
    assert "mardi au samedi" in interaction.answer
    # Matching sees the empty knowledge base at once.
    assert chatbox.talk("Quels sont vos horaires d'ouverture ?")["typeResponse"] != "DMUnderstoodQuestion"


def test_refusals_change_nothing(client, rich_bot, personas, reader_token):
    before = whole_knowledge_base(rich_bot)
    cases = [
        (client.delete(url(rich_bot)), 401, "MISSING_CREDENTIALS"),
        (client.delete(url(rich_bot), HTTP_AUTHORIZATION="dyt_nope"), 401, "INVALID_CREDENTIALS"),
        (client.delete(url(rich_bot), HTTP_AUTHORIZATION=personas.charlie.token), 403, "FORBIDDEN"),
        (client.delete(url(rich_bot), HTTP_AUTHORIZATION=reader_token), 403, "FORBIDDEN"),
        (client.delete(url(rich_bot, "sometimes"), HTTP_AUTHORIZATION=personas.alice.token), 400, "INVALID_FIELD"),
        (client.get(url(rich_bot), HTTP_AUTHORIZATION=personas.alice.token), 405, "METHOD_NOT_ALLOWED"),
        (
            client.delete(
                "/servlet/api/bot/knowledgebase/delete/0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11/false",
                HTTP_AUTHORIZATION=personas.alice.token,
            ),
            404,
            "UNKNOWN_BOT",
        ),
    ]
    for response, status, code in cases:
        assert (response.status_code, response.json()["code"]) == (status, code)
    assert whole_knowledge_base(rich_bot) == before


def test_delete_without_the_gallery_segment_deletes_the_gallery(client, rich_bot, personas):
    response = client.delete(f"/api/bot/knowledgebase/delete/{rich_bot.uuid}", HTTP_AUTHORIZATION=personas.alice.token)
    assert response.status_code == 200
    assert response.json()["deleted"]["galleryImages"] == 2
