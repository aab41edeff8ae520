"""The back office's "Import / export" page of a bot, through Django's test client: the same rights as the
servlet API (editors and administrators import and delete, readers only export, another account's bot is
404), the importer's refusals shown on the page with nothing changed, the delete confirmation naming what
goes, and a round trip through the page that changes nothing (bytes, nor the list's first formulations)."""

import io

import pytest
from django.urls import reverse

from accounts.models import Role
from knowledge.models import Formulation, GalleryImage, KnowledgeItem
from knowledge.vectors.models import VectorJob
from tests.accounts.personas import make_persona

from .conftest import attack, whole_knowledge_base

pytestmark = pytest.mark.django_db


def url(name: str, bot) -> str:
    return reverse(f"admin:knowledge_exchange{name}", args=[bot.pk])


def signed_in(client, user):
    client.force_login(user)
    return client


def xml_file(content: bytes, name: str = "kb.xml"):
    sent = io.BytesIO(content)
    sent.name = name
    return sent


def export(client, bot, gallery=True) -> bytes:
    response = client.get(url("_export", bot), {"gallery": "1"} if gallery else {})
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Disposition"].startswith("attachment;")
    return b"".join(response.streaming_content)


def first_questions(bot) -> dict:
    """What the items list's Question column shows: each item's first formulation (position, id)."""
    shown = {}
    for item_id, text in (
        Formulation.objects.filter(item__bot=bot).order_by("item_id", "position", "id").values_list("item_id", "text")
    ):
        shown.setdefault(item_id, text)
    return shown


# --- rights --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", [Role.ADMINISTRATOR, Role.EDITOR])
def test_editors_and_administrators_see_import_export_and_delete(client, demo_bot, personas, role):
    user, _ = make_persona(personas.account, role)
    response = signed_in(client, user).get(url("", demo_bot))
    assert response.status_code == 200
    page = response.content.decode()
    for part in ('data-testid="export"', 'data-testid="import"', 'data-testid="delete"'):
        assert part in page
    assert client.get(url("_delete", demo_bot)).status_code == 200


def test_a_reader_sees_export_only_and_may_neither_import_nor_delete(client, demo_bot, personas):
    reader, _ = make_persona(personas.account, Role.READER)
    signed_in(client, reader)
    page = client.get(url("", demo_bot)).content.decode()
    assert 'data-testid="export"' in page
    assert 'data-testid="import"' not in page and 'data-testid="delete"' not in page
    assert len(export(client, demo_bot)) > 1000
    before = whole_knowledge_base(demo_bot)
    refused = client.post(url("_import", demo_bot), {"file": xml_file(before)})
    assert refused.status_code == 403
    assert client.get(url("_delete", demo_bot)).status_code == 403
    assert client.post(url("_delete", demo_bot)).status_code == 403
    assert whole_knowledge_base(demo_bot) == before


def test_another_accounts_bot_is_not_found(client, demo_bot, personas):
    signed_in(client, personas.charlie.user)
    before = whole_knowledge_base(demo_bot)
    for name in ("", "_export", "_status", "_delete"):
        assert client.get(url(name, demo_bot)).status_code == 404, name
    assert client.post(url("_import", demo_bot), {"file": xml_file(before)}).status_code == 404
    assert client.post(url("_delete", demo_bot)).status_code == 404
    assert whole_knowledge_base(demo_bot) == before


def test_the_sidebar_and_the_bots_page_lead_to_the_page(client, demo_bot, personas):
    signed_in(client, personas.bob.user)
    index = client.get("/admin/knowledge/exchange/")
    assert index.status_code == 302 and index["Location"] == url("", demo_bot)
    assert "/admin/knowledge/exchange/" in client.get("/admin/").content.decode()
    bot_page = client.get(reverse("admin:bots_bot_change", args=[demo_bot.pk])).content.decode()
    assert f'href="{url("", demo_bot)}"' in bot_page


def test_import_needs_the_csrf_token(demo_bot, personas):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(personas.bob.user)
    before = whole_knowledge_base(demo_bot)
    response = strict.post(url("_import", demo_bot), {"file": xml_file(before)})
    assert response.status_code == 403
    assert strict.post(url("_delete", demo_bot)).status_code == 403
    assert KnowledgeItem.objects.filter(bot=demo_bot).exists()


# --- refusals ------------------------------------------------------------------------------------------


UNCHANGED = "Nothing was changed: the knowledge base is as it was."


def refused(client, bot, content: bytes, status: int, unchanged: str = UNCHANGED) -> str:
    before = whole_knowledge_base(bot)
    response = client.post(url("_import", bot), {"file": xml_file(content)})
    assert response.status_code == status, response.content[:300]
    assert whole_knowledge_base(bot) == before
    page = response.content.decode()
    assert 'data-testid="import-refused"' in page
    assert unchanged in page
    return page


def test_a_file_with_a_doctype_is_refused_on_the_page(client, demo_bot, personas):
    signed_in(client, personas.bob.user)
    page = refused(client, demo_bot, attack("xxe_file.xml"), 400)
    assert "The file holds a DOCTYPE (or an entity), which is never accepted." in page
    assert "Line 2, column 1." in page


def test_xml_that_is_not_well_formed_is_refused_on_the_page(client, demo_bot, personas):
    signed_in(client, personas.bob.user)
    page = refused(client, demo_bot, b'<?xml version="1.0"?>\n<knowledgeBase formatVersion="1" <<', 400)
    assert "The file is not well-formed XML." in page
    assert "Line 2, column" in page


def test_a_file_of_the_wrong_schema_is_refused_on_the_page(client, demo_bot, personas):
    signed_in(client, personas.bob.user)
    page = refused(
        client, demo_bot, b'<?xml version="1.0"?>\n<knowledgeBase formatVersion="1"><nonsense/></knowledgeBase>', 400
    )
    assert "The file does not follow the knowledge base format (its XML Schema)." in page


def test_a_file_over_the_limit_is_refused_before_it_is_read(client, demo_bot, personas, settings):
    signed_in(client, personas.bob.user)
    content = whole_knowledge_base(demo_bot)
    settings.KB_UPLOAD_MAX_BYTES = len(content) // 2
    page = refused(client, demo_bot, content, 413)
    assert "The file is larger than this server accepts." in page
    assert f"Largest file: {len(content) // 2 / 1024:g}\u00a0KB." in page


def test_no_file_or_an_empty_one_is_refused_on_the_page(client, demo_bot, personas):
    signed_in(client, personas.bob.user)
    response = client.post(url("_import", demo_bot), {})
    assert response.status_code == 400 and "Choose a file to import." in response.content.decode()
    assert "The file is empty." in refused(client, demo_bot, b"", 400)


def test_refusals_are_in_french_for_a_french_user(client, demo_bot, personas):
    signed_in(client, personas.bob.user)
    client.cookies["django_language"] = "fr"
    page = refused(
        client,
        demo_bot,
        attack("xxe_file.xml"),
        400,
        "Rien n’a changé : la base de connaissances est telle qu’elle était.",
    )
    assert "Le fichier contient une DOCTYPE (ou une entité), ce qui n’est jamais accepté." in page
    assert "Ligne 2, colonne 1." in page


# --- import, export, delete ------------------------------------------------------------------------------


def test_import_through_the_page_reports_the_counts_per_kind(client, rich_bot, personas):
    signed_in(client, personas.bob.user)
    content = export(client, rich_bot)
    KnowledgeItem.objects.filter(bot=rich_bot).delete()
    response = client.post(url("_import", rich_bot), {"file": xml_file(content, "rich.xml")})
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-testid="import-result"' in page and "“rich.xml” was imported in" in page
    counts = response.context["result"]["rows"]
    assert ("Knowledge items", KnowledgeItem.objects.filter(bot=rich_bot).count(), False) == counts[0]
    assert ("Formulations", Formulation.objects.filter(item__bot=rich_bot).count(), False) in counts
    assert ("Gallery images", GalleryImage.objects.filter(bot=rich_bot).count(), False) in counts
    assert any(detail for _, _, detail in counts)  # the kinds, under the items
    assert export(client, rich_bot) == content


def test_export_without_the_gallery_leaves_the_images_out(client, rich_bot, personas):
    signed_in(client, personas.bob.user)
    assert b"<image " in export(client, rich_bot, gallery=True)
    assert b"<image " not in export(client, rich_bot, gallery=False)


def test_the_vectors_progress_is_shown_and_polled_after_an_import(client, demo_bot, personas, settings, monkeypatch):
    """With embeddings, the importer schedules the vectors' job: the page shows its progress, and the
    status URL the page polls answers as the status servlet does."""
    from knowledge import matching

    settings.MATCHING_EMBEDDINGS = True
    monkeypatch.setattr(matching, "embeddings_available", lambda: True)
    signed_in(client, personas.bob.user)
    content = export(client, demo_bot)
    response = client.post(url("_import", demo_bot), {"file": xml_file(content)})
    page = response.content.decode()
    total = Formulation.objects.filter(item__bot=demo_bot).count()
    assert 'data-testid="vectors" data-state="pending"' in page
    assert f"Formulation vectors: 0 of {total} computed." in page
    job = VectorJob.objects.get(bot=demo_bot)
    job.state, job.done = "running", 40
    job.save()
    status = client.get(url("_status", demo_bot)).json()
    assert status["vectors"] == {"state": "running", "done": 40, "total": total}
    assert status["matching"] == "lexical"
    # Still running when the page is opened again: shown there too.
    assert f"Formulation vectors: 40 of {total} computed." in client.get(url("", demo_bot)).content.decode()


def test_delete_asks_first_naming_what_goes_then_deletes(client, rich_bot, personas):
    signed_in(client, personas.bob.user)
    items = KnowledgeItem.objects.filter(bot=rich_bot).count()
    images = GalleryImage.objects.filter(bot=rich_bot).count()
    confirm = client.get(url("_delete", rich_bot), {"gallery": "1"})
    goes = confirm.context["goes"]
    assert goes[0] == ("Knowledge items", items, False)
    assert ("Gallery images", images, False) in goes
    assert "Delete the knowledge base of Rich bot?" in confirm.content.decode()
    assert KnowledgeItem.objects.filter(bot=rich_bot).count() == items  # asking deletes nothing

    without_gallery = client.get(url("_delete", rich_bot)).context["goes"]
    assert "Gallery images" not in [label for label, _, _ in without_gallery]
    response = client.post(url("_delete", rich_bot), follow=True)
    assert not KnowledgeItem.objects.filter(bot=rich_bot).exists()
    assert GalleryImage.objects.filter(bot=rich_bot).count() == images  # the gallery stayed
    assert f"The knowledge base was deleted (Knowledge items: {items}," in response.content.decode()
    client.post(url("_delete", rich_bot), {"gallery": "1"})
    assert not GalleryImage.objects.filter(bot=rich_bot).exists()


def test_a_round_trip_through_the_page_changes_nothing_a_person_sees(client, demo_bot, personas):
    """The French demo bot: export, delete, import, export; the same bytes, and every item's first
    formulation (the list's Question column) as before, in French."""
    signed_in(client, personas.bob.user)
    shown = first_questions(demo_bot)
    assert shown[KnowledgeItem.objects.get(bot=demo_bot, formulations__text="Bonjour").pk] == "Bonjour"
    first = export(client, demo_bot)
    client.post(url("_delete", demo_bot), {"gallery": "1"})
    assert not KnowledgeItem.objects.filter(bot=demo_bot).exists()
    assert client.post(url("_import", demo_bot), {"file": xml_file(first)}).status_code == 200
    assert export(client, demo_bot) == first
    assert first_questions(demo_bot) == shown
