"""The answer editor in a real browser (Debian's chromium, 1366 px) as an editor of the demo bot's account:
rich text with bold and a list, a link that asks the bot a question, a bubble break and an image from the
gallery, saved as the chatbox's HTML through the sanitiser and answered by the chat; an answer holding a
table opens as HTML and keeps it; on a new item the bot and the default language are preset, the tab
counters follow the rows typed, and new formulations keep the order they were typed in.
Screenshots go to test-results/answer-editor/."""

import base64
import re
from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import expect

from knowledge.models import Answer, GalleryImage, KnowledgeItem
from tests.accounts.personas import PASSWORD, make_persona
from tests.backoffice.test_knowledge_editing_browser import editor_page, item_url  # noqa: F401 (fixture)
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "answer-editor"
expect.set_options(timeout=15_000)
# A 2×2 red PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg=="
)


def shot(page, name: str, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def type_slowly(page, text: str) -> None:
    """Trix applies each keystroke asynchronously: typed at machine speed, characters get lost."""
    page.keyboard.type(text, delay=40)
    page.wait_for_timeout(100)


def english_answer(item) -> Answer:
    return Answer.objects.get(item=item, language="en", space__is_default=True)


def answer_box(page, item, answer):
    index = list(Answer.objects.filter(item=item)).index(answer)
    textarea = page.locator(f"#id_answers-{index}-text")
    return page.locator("[data-answer-editor]").filter(has=textarea), textarea


def test_an_answer_written_in_rich_text_is_saved_as_the_chatbox_html(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    image = GalleryImage.objects.create(bot=demo_bot_live, name="map.png", media_type="image/png", content=PNG)
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Opening hours")
    answer = english_answer(item)
    page.goto(item_url(live_server, item))
    page.locator("#tabs-items a[href='#answers']").click()
    box, textarea = answer_box(page, item, answer)

    # The demo's answer opens in rich text: its bold hours shown as bold, no HTML in sight.
    expect(box).to_have_attribute("data-mode", "rich")
    editor = box.locator("trix-editor")
    expect(editor.locator("strong")).to_have_text("Tuesday to Saturday, 9 am to 5:30 pm")
    expect(textarea).to_be_hidden()

    # Replace it: a bold phrase, a bulleted list, a question link, a bubble break and a gallery image.
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    expect(editor).to_have_text("")
    bold = box.locator("trix-toolbar [data-trix-attribute=bold]")
    type_slowly(page, "We open ")
    bold.click()
    type_slowly(page, "every weekday")
    bold.click()
    type_slowly(page, ".")
    expect(editor.locator("strong")).to_have_text("every weekday")
    page.keyboard.press("Enter", delay=40)
    box.locator("trix-toolbar [data-trix-attribute=bullet]").click()
    type_slowly(page, "Paris")
    page.keyboard.press("Enter", delay=40)
    type_slowly(page, "Lyon")
    page.keyboard.press("Enter", delay=40)
    page.keyboard.press("Enter", delay=40)
    page.once("dialog", lambda dialog: dialog.accept("Where is my nearest branch?"))
    box.locator("[data-editor-piece=question]").click()
    box.locator("[data-editor-piece=bubble]").click()
    box.locator("[data-editor-gallery] summary").click()
    box.locator(f"[data-editor-image*='/gallery/{demo_bot_live.uuid}/{image.pk}']").click()
    expect(editor.locator("img")).to_have_count(1)

    # The preview shows what the visitor will see, refreshed from the editor.
    preview = page.locator("#answers-group .form-group").filter(has=textarea).get_by_test_id("answer-preview")
    expect(preview.locator("strong")).to_have_text("every weekday")
    expect(preview.locator("li")).to_have_count(2)
    box.scroll_into_view_if_needed()
    shot(page, "01-rich-answer")

    page.click("[name=_continue]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    answer.refresh_from_db()
    stored = answer.text
    assert "We open <strong>every weekday</strong>." in stored
    assert re.search(r"<ul><li>Paris</li><li>Lyon</li></ul>", stored)
    # The question link is the chatbox's reword link, built by the server.
    assert (
        '<a href="#" class="reword" onclick="try {reword(\'Where is my nearest branch?\','
        "{'type':'redirection_knowledge'}); return false;}catch(e){}\">Where is my nearest branch?</a>"
    ) in stored
    assert "<hr>" in stored
    image_url = f"{live_server.url}/gallery/{demo_bot_live.uuid}/{image.pk}"
    assert f'<img src="{image_url}"' in stored
    assert "figure" not in stored and "data-trix" not in stored and "#reword" not in stored

    # Reopened, the same pieces are back in the editor; the image is served to anyone, as an image.
    page.locator("#tabs-items a[href='#answers']").click()
    box, _textarea = answer_box(page, item, answer)
    expect(box.locator("trix-editor a[href^='#reword']")).to_have_text("Where is my nearest branch?")
    expect(box.locator("trix-editor img")).to_have_count(1)
    shot(page, "02-reopened")
    served = Client().get(f"/gallery/{demo_bot_live.uuid}/{image.pk}")
    assert served.status_code == 200 and served["Content-Type"] == "image/png" and served.content == PNG


def test_an_answer_with_a_table_opens_as_html_and_keeps_it(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Opening hours")
    answer = english_answer(item)
    answer.text = "<table><tr><td>Mon</td><td>closed</td></tr></table>"
    answer.save()
    page.goto(item_url(live_server, item))
    page.locator("#tabs-items a[href='#answers']").click()
    box, textarea = answer_box(page, item, answer)
    expect(box).to_have_attribute("data-mode", "source")
    expect(box.locator("[data-editor-mode=rich]")).to_be_disabled()
    expect(box.locator("[data-editor-note]")).to_contain_text("edited as HTML")
    expect(textarea).to_have_value(answer.text)
    textarea.fill('<table><tr><td>Mon</td><td>closed</td></tr></table><img src="x" onerror="alert(1)">')
    box.scroll_into_view_if_needed()
    shot(page, "03-html-answer")
    page.click("[name=_continue]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    answer.refresh_from_db()
    # The table is kept; the event handler the sanitiser refuses is not.
    assert answer.text == '<table><tbody><tr><td>Mon</td><td>closed</td></tr></tbody></table><img src="x">'


def test_a_new_item_presets_its_bot_and_language_and_counts_its_rows(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/add/")
    # The editor's account has one bot: it is chosen already, and the rows speak its default language.
    expect(page.locator("#id_bot")).to_have_value(str(demo_bot_live.pk))
    page.fill("#id_label", "Parking")
    tab = page.locator("#tabs-items a[href='#formulations']")
    expect(tab.locator("span.rounded-default")).to_have_text("0")
    tab.click()
    expect(page.locator("#id_formulations-0-language")).to_have_value(demo_bot_live.default_language)
    # No position column: rows keep the order they are typed in.
    expect(page.locator("#id_formulations-0-position")).to_be_hidden()
    page.fill("#id_formulations-0-text", "Où puis-je me garer ?")
    expect(tab.locator("span.rounded-default")).to_have_text("1")
    page.locator("#formulations-group").get_by_text(re.compile("Add another", re.I)).click()
    expect(page.locator("#id_formulations-1-language")).to_have_value(demo_bot_live.default_language)
    page.fill("#id_formulations-1-text", "Avez-vous un parking ?")
    expect(tab.locator("span.rounded-default")).to_have_text("2")
    shot(page, "04-new-item-formulations")

    answers_tab = page.locator("#tabs-items a[href='#answers']")
    answers_tab.click()
    page.locator("#answers-group").get_by_text(re.compile("Add another", re.I)).click()
    expect(page.locator("#id_answers-0-language")).to_have_value(demo_bot_live.default_language)
    editor = page.locator("#answers-group [data-answer-editor] trix-editor").first
    editor.click()
    type_slowly(page, "Un parking gratuit est devant chaque agence.")
    expect(answers_tab.locator("span.rounded-default")).to_have_text("1")
    shot(page, "05-new-item-answer")

    page.click("[name=_continue]")
    expect(page.locator("body")).to_contain_text("was added successfully")
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Parking")
    assert list(item.formulations.order_by("position", "id").values_list("text", "language")) == [
        ("Où puis-je me garer ?", demo_bot_live.default_language),
        ("Avez-vous un parking ?", demo_bot_live.default_language),
    ]
    assert item.answers.get().text == "<div>Un parking gratuit est devant chaque agence.</div>"


def test_the_editor_speaks_french(browser, live_server, demo_bot_live):  # noqa: F811
    make_persona(demo_bot_live.account, "editor", login="edith")
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="fr-FR")
    page = context.new_page()
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "edith")
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Opening hours")
    page.goto(item_url(live_server, item))
    page.locator("#tabs-items a[href='#answers']").click()
    box = page.locator("[data-answer-editor]").first
    expect(box.locator("[data-editor-mode=rich]")).to_have_text("Texte enrichi")
    expect(box.locator("[data-editor-piece=question]")).to_contain_text("Lien vers une question")
    expect(box.locator("[data-editor-piece=bubble]")).to_contain_text("Nouvelle bulle")
    expect(box.locator("trix-toolbar [data-trix-attribute=bold]")).to_have_attribute("title", "Gras")
    box.locator("[data-editor-gallery] summary").click()
    expect(box.locator("[data-editor-gallery]")).to_contain_text("La galerie du bot n’a pas encore d’image")
    shot(page, "06-editor-in-french")
    context.close()
