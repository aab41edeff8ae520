"""Knowledge editing in a real browser (Debian's chromium, 1366 px wide) as an editor of the demo bot's
account: add a formulation in a language chosen from the bot's, change an answer and see its sanitised
preview, then ask the "test the bot" box and see it answer with that item and say why; bulk status
changes; the conflict warning; a language the bot does not have refused; the biggest item's page height.
Screenshots go to test-results/knowledge-editing/."""

import re
from pathlib import Path

import pytest
from django.db.models import Count
from playwright.sync_api import expect

from dialogs.models import Dialog
from knowledge.models import Answer, Formulation, KnowledgeItem, MatchingGroup, Tag
from tests.accounts.personas import PASSWORD, make_persona
from tests.backoffice.test_knowledge_editing import png
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "knowledge-editing"
expect.set_options(timeout=15_000)

NEW_QUESTION = "Do you open on bank holidays?"
NEW_ANSWER = "<p>Our branches open <b>9 am to 5:30 pm</b>, bank holidays included.</p><script>alert(1)</script>"
# The demo's biggest item ("Loan": 6 formulations, 2 answers, 4 answer branches) was 8,787 px tall at
# 1366 px wide before the editor was reworked (measured the same way at commit a9b7ec2).
HEIGHT_BEFORE = 8787


def shot(page, name: str, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


@pytest.fixture
def editor_page(browser, live_server, demo_bot_live):  # noqa: F811
    """A browser page logged in as an editor (role group permissions, staff through the membership)."""
    user, _ = make_persona(demo_bot_live.account, "editor", login="eddie")
    assert user.has_perm("knowledge.change_knowledgeitem") and not user.is_superuser
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "eddie")
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    expect(page).not_to_have_url(re.compile(r"/login/"))
    yield page
    context.close()


def item_url(live_server, item) -> str:
    return f"{live_server.url}/admin/knowledge/knowledgeitem/{item.pk}/change/"


def test_an_editor_edits_an_item_then_the_test_box_answers_with_it(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Opening hours")
    page.goto(item_url(live_server, item))
    shot(page, "01-item-general-tab")

    # Formulations: a compact table in its own tab; the language is one of the bot's, from a list.
    page.locator("#tabs-items a[href='#formulations']").click()
    expect(page.locator("#formulations-group")).to_be_visible()
    extra = item.formulations.count()  # the empty row after the stored ones
    language = page.locator(f"#id_formulations-{extra}-language")
    options = language.locator("option").all_inner_texts()
    assert options == ["---------", "French (fr)", "English (en)"]
    language.select_option("en")
    page.fill(f"#id_formulations-{extra}-text", NEW_QUESTION)
    shot(page, "02-formulations-tab")

    # Answers: the English default-space answer, its preview rendered (and sanitised) while typing.
    page.locator("#tabs-items a[href='#answers']").click()
    english = Answer.objects.get(item=item, language="en", space__is_default=True)
    index = list(Answer.objects.filter(item=item)).index(english)
    text = page.locator(f"#id_answers-{index}-text")
    expect(text).to_have_value(english.text)
    preview = page.locator("#answers-group .form-group").filter(has=text).get_by_test_id("answer-preview")
    expect(preview.locator("b")).to_have_text("Tuesday to Saturday, 9 am to 5:30 pm")
    # Typed as HTML (the editor's source view; rich text is tests/backoffice/test_answer_editor_browser.py).
    page.locator("[data-answer-editor]").filter(has=text).locator("[data-editor-mode=source]").click()
    text.fill(NEW_ANSWER)
    expect(preview.locator("b")).to_have_text("9 am to 5:30 pm")
    expect(preview).to_contain_text("bank holidays included")
    assert preview.locator("script").count() == 0
    preview.scroll_into_view_if_needed()
    shot(page, "03-answer-preview")

    page.click("[name=_continue]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    assert Formulation.objects.filter(item=item, language="en", text=NEW_QUESTION).exists()
    english.refresh_from_db()
    # Stored through the sanitiser: the markup kept, the script dropped.
    assert english.text == NEW_ANSWER.replace("<script>alert(1)</script>", "")

    # The bot's page: the test box answers with the edited item and says why.
    page.goto(f"{live_server.url}/admin/bots/bot/{demo_bot_live.pk}/change/")
    box = page.get_by_test_id("test-bot")
    box.get_by_test_id("test-bot-language").select_option("en")
    box.get_by_test_id("test-bot-input").fill(NEW_QUESTION)
    box.get_by_test_id("test-bot-send").click()
    answer = box.get_by_test_id("test-bot-answer")
    expect(answer).to_contain_text("bank holidays included")
    assert answer.locator("script").count() == 0
    expect(box.get_by_test_id("test-bot-outcome")).to_have_attribute("data-outcome", "direct")
    expect(box.get_by_test_id("test-bot-formulation")).to_have_text(f"« {NEW_QUESTION} »")
    expect(box.get_by_test_id("test-bot-item")).to_have_text("Opening hours")
    expect(box.get_by_test_id("test-bot-item")).to_have_attribute(
        "href", f"/admin/knowledge/knowledgeitem/{item.pk}/change/"
    )
    expect(box.get_by_test_id("test-bot-score")).to_contain_text("score ")
    assert box.get_by_test_id("test-bot-runner-up").count() >= 1

    # A question that shares no word with the knowledge: misunderstood, with no item to name.
    box.get_by_test_id("test-bot-input").fill("Can I pay my taxes with seashells?")
    box.get_by_test_id("test-bot-send").click()
    expect(box.get_by_test_id("test-bot-outcome")).to_have_count(2)
    expect(box.get_by_test_id("test-bot-outcome").last).to_have_attribute("data-outcome", "misunderstood")
    box.evaluate("box => box.scrollIntoView({block: 'start'})")  # the whole box, above the save bar
    shot(page, "04-test-the-bot")

    # Qualification mode: the test dialog is kept out of analytics.
    dialog = Dialog.objects.filter(bot=demo_bot_live).latest("pk")
    assert dialog.qualification_mode
    assert not dialog.interactions.filter(counted=True).exists()

    # A runner-up is a link to that item's page.
    runner_up = box.get_by_test_id("test-bot-runner-up").first.locator("a")
    runner_up.click()
    expect(page).to_have_url(f"{live_server.url}/admin/knowledge/knowledgeitem/{runner_up_id(page)}/change/")


def runner_up_id(page) -> int:
    return int(page.url.rstrip("/").split("/")[-2])


def test_bulk_status_change_from_the_list(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    base = f"{live_server.url}/admin/knowledge/knowledgeitem/"
    drafts = list(KnowledgeItem.objects.filter(bot=demo_bot_live, status="draft"))
    cards = KnowledgeItem.objects.filter(bot=demo_bot_live, tag__name="Cartes", status="published")
    # Three published card items back to draft, picked in the list filtered by tag.
    page.goto(f"{base}?tag__id__exact={cards[0].tag_id}&status__exact=published")
    boxes = page.locator("#result_list tbody input.action-select")
    expect(boxes).to_have_count(cards.count())
    picked = [int(boxes.nth(i).get_attribute("value")) for i in range(3)]
    for i in range(3):
        boxes.nth(i).check()
    page.select_option("select[name=action]", "back_to_draft")
    page.click("button[name=index]")
    expect(page.locator("body")).to_contain_text("3 items back to draft: only the test bot uses them.")
    assert set(KnowledgeItem.objects.filter(pk__in=picked).values_list("status", flat=True)) == {"draft"}

    page.goto(f"{base}?status__exact=draft")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(len(drafts) + 3)
    expect(page.locator("#result_list [data-status=draft]")).to_have_count(len(drafts) + 3)
    shot(page, "05-list-drafts")
    page.locator("#action-toggle").check()
    page.select_option("select[name=action]", "publish")
    page.click("button[name=index]")
    expect(page.locator("body")).to_contain_text(f"{len(drafts) + 3} items published: the chat answers with them now.")
    assert not KnowledgeItem.objects.filter(bot=demo_bot_live, status="draft").exists()
    page.goto(base)
    shot(page, "06-list-all-published")

    # One by one: the item's own status, back to draft.
    item = drafts[0]
    page.goto(item_url(live_server, item))
    page.select_option("#id_status", "disabled")
    page.click("[name=_save]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    item.refresh_from_db()
    assert item.status == "disabled"
    page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/?status__exact=disabled")
    expect(page.locator("#result_list tbody tr")).to_have_count(
        KnowledgeItem.objects.filter(bot=demo_bot_live, status="disabled").count()
    )
    expect(page.locator("#result_list")).to_contain_text(str(item))
    shot(page, "07-list-disabled")


def test_a_formulation_another_item_matches_better_is_warned(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    fees = KnowledgeItem.objects.get(bot=demo_bot_live, label="Account fees")
    question = fees.formulations.filter(language="fr").first().text
    page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/add/")
    page.select_option("#id_bot", str(demo_bot_live.pk))
    page.fill("#id_label", "Monthly price")
    page.locator("#tabs-items a[href='#formulations']").click()
    page.select_option("#id_formulations-0-language", "fr")
    page.fill("#id_formulations-0-text", question)
    page.click("[name=_continue]")
    expect(page.locator("body")).to_contain_text("was added successfully")
    # Account fees answered this very question before: the warning names it, with a link to its page.
    warning = page.locator("li").filter(has_text="Another item already answers").first
    expect(warning).to_contain_text(f"“{question}” (fr)")
    link = warning.get_by_role("link", name="Account fees")
    expect(link).to_have_attribute("href", f"/admin/knowledge/knowledgeitem/{fees.pk}/change/")
    shot(page, "08-conflict-warning")


def test_a_formulation_in_a_language_the_bot_does_not_have_is_refused(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    item = KnowledgeItem.objects.get(bot=demo_bot_live, label="Opening hours")
    before = item.formulations.count()
    page.goto(item_url(live_server, item))
    page.locator("#tabs-items a[href='#formulations']").click()
    extra = item.formulations.count()  # the empty row after the stored ones
    select = page.locator(f"#id_formulations-{extra}-language")
    # The list offers only the bot's languages: a tampered form posts another one anyway.
    select.evaluate("s => s.add(new Option('francais', 'francais'))")
    select.select_option("francais")
    page.fill(f"#id_formulations-{extra}-text", "Quand ouvrez-vous ?")
    page.click("[name=_save]")
    expect(page.locator("body")).to_contain_text("“francais” is not a language of this bot.")
    expect(page.locator("#tabs-items a[href='#formulations']")).to_contain_text("1")  # the tab counts the error
    assert item.formulations.count() == before
    page.locator("#tabs-items a[href='#formulations']").click()
    shot(page, "09-language-refused")


def test_the_biggest_item_page_is_much_shorter(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    # The demo's biggest items: the one with the most formulations, answers and branches, and Loan, whose
    # page was the tallest (its branches are the largest parts).
    parts = KnowledgeItem.objects.filter(bot=demo_bot_live).annotate(
        parts=Count("formulations", distinct=True) + Count("answers", distinct=True) + Count("branches", distinct=True)
    )
    most = max(parts, key=lambda item: item.parts)
    for biggest in {most.pk: most, **{item.pk: item for item in parts if item.label == "Loan"}}.values():
        page.goto(item_url(live_server, biggest))
        height = page.evaluate("document.documentElement.scrollHeight")
        print(f"\n{biggest.label} ({biggest.parts} parts): {height} px at 1366 px (before: {HEIGHT_BEFORE} px)")
        shot(page, f"10-biggest-item-{biggest.pk}", full_page=True)
        assert height < HEIGHT_BEFORE / 3
        tallest = 0
        for tab in ["formulations", "answers", "branches"]:
            # Opened from the address (a full-page screenshot resizes the window, which folds the tabs away).
            page.goto(item_url(live_server, biggest) + f"#{tab}")
            page.reload()
            expect(page.locator(f"#{tab}-group")).to_be_visible()
            tallest = max(tallest, page.evaluate("document.documentElement.scrollHeight"))
            shot(page, f"11-biggest-item-{biggest.pk}-{tab}", full_page=True)
        print(f"tallest tab of that item: {tallest} px")
        assert tallest < HEIGHT_BEFORE / 2


def test_tags_groups_sentences_and_gallery_pages(editor_page, live_server, demo_bot_live):  # noqa: F811
    page = editor_page
    cards = Tag.objects.get(bot=demo_bot_live, name="Cartes")
    Tag.objects.create(bot=demo_bot_live, name="Opposition", parent=cards)
    page.goto(f"{live_server.url}/admin/knowledge/tag/")
    names = page.locator("#result_list tbody [data-depth]")
    texts = names.all_inner_texts()
    assert texts.index("└ Opposition") == texts.index("Cartes") + 1  # the child right under its parent
    shot(page, "12-tag-tree")

    group = MatchingGroup.objects.filter(bot=demo_bot_live).first()
    page.goto(f"{live_server.url}/admin/knowledge/matchinggroup/{group.pk}/change/")
    members = page.locator("#id_members")
    expect(members).to_have_value("\n".join(group.members))
    members.fill("\n".join([*group.members, "nouveau membre"]))
    page.click("[name=_continue]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    group.refresh_from_db()
    assert group.members[-1] == "nouveau membre"
    shot(page, "13-matching-group")

    page.goto(f"{live_server.url}/admin/knowledge/globalsentence/add/")
    assert page.locator("#id_language option").all_inner_texts() == ["---------", "French (fr)", "English (en)"]
    shot(page, "14-global-sentence")

    page.goto(f"{live_server.url}/admin/knowledge/galleryimage/add/")
    page.select_option("#id_bot", str(demo_bot_live.pk))
    page.set_input_files("#id_upload", files=[{"name": "agence.png", "mimeType": "image/png", "buffer": png(64, 40)}])
    page.click("[name=_continue]")
    expect(page.locator("body")).to_contain_text("was added successfully")
    expect(page.locator("img[src^='data:image/png;base64,']")).to_be_visible()
    shot(page, "15-gallery-image")
    page.goto(f"{live_server.url}/admin/knowledge/galleryimage/")
    thumbnail = page.locator("#result_list img").first
    expect(thumbnail).to_be_visible()
    # Served and decoded: the image's width once it has loaded (it may still be loading when it shows).
    loaded_width = """img => img.complete ? img.naturalWidth : new Promise(done => {
        img.addEventListener("load", () => done(img.naturalWidth));
        img.addEventListener("error", () => done(0));
    })"""
    assert thumbnail.evaluate(loaded_width) == 64
    shot(page, "16-gallery-list")
