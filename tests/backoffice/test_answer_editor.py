"""The answer editor's server side, without a browser: what is saved goes through the sanitiser with the
product's reword links kept, the demo's answers open in rich text and survive a save unchanged, question
links become the chatbox's reword links, gallery images are public and only as images, new formulations
go last without a position number, and the add page presets the user's only bot and its languages."""

import uuid

import pytest
from django.test import Client

from bots.models import Bot
from knowledge.backoffice.answer_editor import from_editor, rich_editable, saved_answer, to_editor
from knowledge.links import reword_link
from knowledge.models import Answer, GalleryImage, KnowledgeItem
from tests.backoffice.test_knowledge_editing import add_formulation, item_form, login, page_fields, png

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def lexical(settings):
    settings.MATCHING_EMBEDDINGS = False


def test_a_saved_answer_keeps_reword_links_and_loses_scripts():
    link = reword_link("Quels sont vos horaires d'ouverture ?", "redirection_knowledge", space="Pro")
    typed = f'<b>Voir</b> {link}<hr/><a href="javascript:alert(1)" onclick="x()">piège</a><img src=x onerror=alert(1)>'
    saved = saved_answer(typed)
    assert link in saved  # byte for byte the chatbox's link
    assert "javascript" not in saved and "onerror" not in saved and 'onclick="x()"' not in saved
    assert saved == saved_answer(saved)  # saving again changes nothing
    assert "<hr>" in saved and "<b>Voir</b>" in saved


def test_the_editors_question_links_become_reword_links():
    assert to_editor(reword_link("Hello 'you'", "reword_auto")) == (
        "<a href=\"#reword?q=Hello+%27you%27&amp;type=reword_auto\">Hello 'you'</a>"
    )
    assert from_editor(to_editor(reword_link("Hello 'you'", "reword_auto"))) == reword_link(
        "Hello 'you'", "reword_auto"
    )
    # A question link with no question, or a type that is not a word, keeps its text and loses the link.
    assert saved_answer('<a href="#reword?q=&amp;type=x">text</a>') == "<a>text</a>"
    assert saved_answer('<a href="#reword?q=a&amp;type=x%27)%3Balert(1)%3B(%27">text</a>') == "<a>text</a>"


def test_every_demo_answer_opens_in_rich_text_and_saves_unchanged(demo_bot):
    texts = list(Answer.objects.filter(item__bot=demo_bot).values_list("text", flat=True))
    assert texts and all(rich_editable(text) for text in texts)
    links = [text for text in texts if 'class="reword"' in text]
    assert links and all(reword_link_kept(text) for text in links)
    assert not rich_editable("<table><tr><td>x</td></tr></table>")
    assert not rich_editable('<span style="color:red">x</span>')
    assert not rich_editable('<a href="#" onclick="track()">x</a>')


def reword_link_kept(text: str) -> bool:
    return text.count('class="reword"') == saved_answer(text).count('class="reword"')


def test_an_item_saved_without_touching_its_answers_keeps_them(client, demo_bot):
    login(client, demo_bot, "editor")
    item = KnowledgeItem.objects.filter(bot=demo_bot, answers__text__contains='class="reword"').first()
    before = dict(item.answers.values_list("pk", "text"))
    url, fields = item_form(client, item)
    response = client.post(url, {**fields, "_continue": "1"})
    assert response.status_code == 302
    assert dict(item.answers.values_list("pk", "text")) == before


def test_an_answer_posted_from_the_editor_is_stored_as_the_chatbox_reads_it(client, demo_bot):
    login(client, demo_bot, "editor")
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    answer = item.answers.order_by("pk").first()
    url, fields = item_form(client, item)
    index = next(key for key, value in fields.items() if key.endswith("-id") and value == str(answer.pk))
    prefix = index[: -len("-id")]
    typed = '<div>See <a href="#reword?q=Where+are+you%3F&amp;type=redirection_knowledge">our branches</a></div>'
    response = client.post(url, {**fields, f"{prefix}-text": typed + "<script>alert(1)</script>"})
    assert response.status_code == 302
    answer.refresh_from_db()
    link = reword_link("Where are you?", "redirection_knowledge").replace(">Where are you?<", ">our branches<")
    assert answer.text == f"<div>See {link}</div>"


def test_gallery_images_are_public_images_only(client, demo_bot):
    image = GalleryImage.objects.create(bot=demo_bot, name="a.png", media_type="image/png", content=png())
    fake = GalleryImage.objects.create(bot=demo_bot, name="b.png", media_type="image/png", content=b"<svg onload=1>")
    anonymous = Client()
    response = anonymous.get(f"/gallery/{demo_bot.uuid}/{image.pk}")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert (
        response["X-Content-Type-Options"] == "nosniff" and response["Content-Security-Policy"] == "default-src 'none'"
    )
    assert anonymous.get(f"/gallery/{demo_bot.uuid}/{fake.pk}").status_code == 404  # not an image: never served
    assert anonymous.get(f"/gallery/{uuid.uuid4()}/{image.pk}").status_code == 404  # another bot's address
    assert anonymous.post(f"/gallery/{demo_bot.uuid}/{image.pk}").status_code == 405
    # The editor offers the bot's images at that address.
    login(client, demo_bot, "editor")
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    page = client.get(f"/admin/knowledge/knowledgeitem/{item.pk}/change/").content.decode()
    assert f'data-editor-image="http://testserver/gallery/{demo_bot.uuid}/{image.pk}"' in page


def test_new_formulations_go_after_the_last_without_a_position(client, demo_bot):
    login(client, demo_bot, "editor")
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    last = max(item.formulations.values_list("position", flat=True))
    url, fields = item_form(client, item)
    index = int(fields["formulations-TOTAL_FORMS"]) - 1
    posted = add_formulation(fields, "en", "When are you open on Sundays?")
    posted[f"formulations-{index}-position"] = ""
    assert client.post(url, posted).status_code == 302
    assert item.formulations.get(text="When are you open on Sundays?").position == last + 1


def test_the_add_page_presets_the_only_bot_and_its_default_language(client, demo_bot):
    login(client, demo_bot, "editor")
    fields = page_fields(client, "/admin/knowledge/knowledgeitem/add/")
    assert fields["bot"] == str(demo_bot.pk)
    assert fields["formulations-0-language"] == demo_bot.default_language
    # With a second bot in the account, the editor chooses.
    Bot.objects.create(name="Second", account=demo_bot.account, default_language="en")
    fields = page_fields(client, "/admin/knowledge/knowledgeitem/add/")
    assert fields.get("bot", "") == ""
