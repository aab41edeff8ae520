"""Export → delete → import → export gives the same bytes, on the demo bot, on a bot holding every
kind of knowledge and on a generated large bot; imported knowledge is what matching answers with
at once."""

import io
import re

import pytest
from django.core.management import call_command

from bots.models import Bot
from knowledge.exchange import export_knowledge_base, import_knowledge_base
from knowledge.exchange.generate import write_generated_file
from knowledge.models import Answer, Formulation, GlobalSentence, KnowledgeItem, Tag

from .conftest import upload

pytestmark = pytest.mark.django_db


def export_url(bot, exclude="false"):
    return f"/servlet/api/bot/knowledgebase/export/{bot.uuid}/{exclude}"


def download(response) -> bytes:
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content)


def test_the_demo_bot_round_trips_byte_for_byte_through_the_servlets(client, demo_bot, personas):
    auth = {"HTTP_AUTHORIZATION": personas.alice.token}
    first = download(client.get(export_url(demo_bot), **auth))
    deleted = client.delete(f"/servlet/api/bot/knowledgebase/delete/{demo_bot.uuid}/false", **auth)
    assert deleted.json()["deleted"]["knowledgeItems"]["total"] > 30
    assert not KnowledgeItem.objects.filter(bot=demo_bot).exists()
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{demo_bot.uuid}", first, personas.alice.token)
    assert response.status_code == 200, response.content
    assert response.json()["idsKept"] == {"tags": True, "knowledgeItems": True, "matchingGroups": True}
    assert download(client.get(export_url(demo_bot), **auth)) == first


def test_every_kind_of_knowledge_round_trips_with_gallery_and_preferences(client, rich_bot, personas):
    auth = {"HTTP_AUTHORIZATION": personas.alice.token}
    first = download(client.get(f"/servlet/api/bot/data/export/{rich_bot.uuid}/false", **auth))
    answers = {(a.item.label, a.language, a.space.name): a.text for a in Answer.objects.filter(item__bot=rich_bot)}
    client.delete(f"/servlet/api/bot/knowledgebase/delete/{rich_bot.uuid}/false", **auth)
    response = upload(client, f"/servlet/api/bot/data/import/{rich_bot.uuid}", first, personas.alice.token)
    assert response.status_code == 200, response.content
    assert download(client.get(f"/servlet/api/bot/data/export/{rich_bot.uuid}/false", **auth)) == first
    # Text comes back exactly: carriage returns, quotes, markup, accents.
    again = {(a.item.label, a.language, a.space.name): a.text for a in Answer.objects.filter(item__bot=rich_bot)}
    assert again == answers
    assert "\r\n" in again[("Carte perdue", "fr", "Defaut")]
    assert GlobalSentence.objects.get(bot=rich_bot, kind="misunderstood").text == "Sorry?\nTry again."


def test_a_generated_large_bot_round_trips_through_the_commands(tmp_path, personas):
    source = tmp_path / "generated.xml"
    write_generated_file(source, items=3000, formulations_per_item=5)
    bot = Bot.objects.create(name="Large", account=personas.account)
    call_command("import_kb", str(bot.uuid), str(source), stdout=io.StringIO())
    assert KnowledgeItem.objects.filter(bot=bot).count() == 3000
    assert Formulation.objects.filter(item__bot=bot).count() == 15000
    first, second = tmp_path / "first.xml", tmp_path / "second.xml"
    call_command("export_kb", "Large", str(first), "--exclude-gallery", stderr=io.StringIO())
    KnowledgeItem.objects.filter(bot=bot).delete()
    call_command("import_kb", "Large", str(first), stdout=io.StringIO())
    call_command("export_kb", str(bot.uuid), str(second), "--exclude-gallery", stderr=io.StringIO())
    assert first.read_bytes() == second.read_bytes()
    # The generated file's own ids were not free here, so the first import renumbered them, in order:
    # the same knowledge base up to its ids.
    assert canonical(source.read_bytes()) == canonical(first.read_bytes())


def canonical(document: bytes) -> bytes:
    """The document without the bot's identity and the groups' uuids, tag and item ids renumbered
    in order of appearance: imports of one file into different bots give the same canonical export."""
    document = re.sub(rb"<knowledgeBase [^>]*>", b"<knowledgeBase>", document, count=1)
    document = re.sub(rb'uuid="[0-9a-f-]{36}"', b'uuid=""', document)
    for element, references in ((b"tag", (rb' tag="', rb' ref="')), (b"knowledgeItem", ())):
        numbers: dict[bytes, bytes] = {}
        for found in re.finditer(rb"<" + element + rb' id="(\d+)"', document):
            numbers.setdefault(found.group(1), str(len(numbers) + 1).encode())

        def renumber(match, numbers=numbers):
            return match.group(1) + numbers.get(match.group(2), b"?") + b'"'

        pattern = rb"(<" + element + rb' id=")(\d+)"'
        document = re.sub(pattern, renumber, document)
        for reference in references:
            document = re.sub(b"(" + reference + rb")(\d+)\"", renumber, document)
    return document


def test_a_copy_into_another_bot_is_the_same_knowledge_base_with_its_own_ids(rich_bot, personas):
    original = b"".join(export_knowledge_base(rich_bot))
    copy = Bot.objects.create(name="Copy", account=personas.account)
    report = import_knowledge_base(copy, io.BytesIO(original))
    assert report.ids_kept["knowledgeItems"] is False
    exported = b"".join(export_knowledge_base(copy))
    assert exported != original
    assert canonical(exported) == canonical(original)


def test_matching_answers_with_imported_knowledge_at_once(client, demo_bot, personas, chatbox, settings):
    settings.MATCHING_EMBEDDINGS = False
    assert "mardi au samedi" in chatbox.talk("Quels sont vos horaires d'ouverture ?")["text"]
    document = b"".join(export_knowledge_base(demo_bot))
    changed = document.replace(b"mardi au samedi", b"lundi au dimanche")
    assert changed != document
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{demo_bot.uuid}", changed, personas.alice.token)
    assert response.status_code == 200
    assert "lundi au dimanche" in chatbox.talk("Quels sont vos horaires d'ouverture ?")["text"]


def test_a_new_item_after_an_import_gets_a_free_id(rich_bot):
    document = b"".join(export_knowledge_base(rich_bot))
    import_knowledge_base(rich_bot, io.BytesIO(document))
    kept = set(KnowledgeItem.objects.filter(bot=rich_bot).values_list("id", flat=True))
    created = KnowledgeItem.objects.create(bot=rich_bot, label="After the import")
    tag = Tag.objects.create(bot=rich_bot, name="After the import")
    assert created.pk not in kept and created.pk > max(kept)
    assert tag.pk


def test_a_re_import_keeps_the_vectors_of_unchanged_formulations(rich_bot):
    # The file does not carry vectors; recomputing them for a large bot would take minutes.
    for formulation in Formulation.objects.filter(item__bot=rich_bot):
        Formulation.objects.filter(pk=formulation.pk).update(vector=f"vector of {formulation.text}".encode())
    document = b"".join(export_knowledge_base(rich_bot))
    changed = document.replace(b">une SARL<", b">une SAS<")
    import_knowledge_base(rich_bot, io.BytesIO(changed))
    vectors = {f.text: f.vector and bytes(f.vector) for f in Formulation.objects.filter(item__bot=rich_bot)}
    assert vectors["une SAS"] is None  # changed text: matching computes it again
    assert vectors["pour moi"] == b"vector of pour moi"
    assert all(vector == f"vector of {text}".encode() for text, vector in vectors.items() if text != "une SAS")
    # Into another bot (fresh ids) nothing is carried over.
    copy = Bot.objects.create(name="Copy")
    import_knowledge_base(copy, io.BytesIO(document))
    assert not Formulation.objects.filter(item__bot=copy, vector__isnull=False).exists()


def test_a_reimport_that_keeps_the_ids_keeps_the_dialogs_links_and_top_knowledge(client, demo_bot, personas, chatbox):
    from dialogs.models import Interaction

    chatbox.talk("Comment faire un virement ?")
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    transfer = KnowledgeItem.objects.get(bot=demo_bot, label="Make a transfer")
    hours = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    exported = b"".join(export_knowledge_base(demo_bot, gallery=True))
    # The file no longer has the opening hours: its interaction is unlinked, the other one stays.
    without_hours = re.sub(rb'<knowledgeItem id="%d".*?</knowledgeItem>' % hours.pk, b"", exported, flags=re.S)
    assert without_hours != exported
    response = upload(
        client, f"/servlet/api/bot/knowledgebase/import/{demo_bot.uuid}", without_hours, personas.alice.token
    )
    assert response.status_code == 200, response.content
    assert response.json()["idsKept"]["knowledgeItems"] is True
    links = dict(Interaction.objects.values_list("user_input", "knowledge_item_id"))
    assert links == {"Comment faire un virement ?": transfer.pk, "Quels sont vos horaires d'ouverture ?": None}
    top = chatbox.values(chatbox.post(f"chat/topknowledge/{chatbox.bot}", {"language": "fr"}))
    assert '"usage":1' in top["knowledgeArticles"] and "virement" in top["knowledgeArticles"]
