"""Our chatbox on the demo page in Debian's chromium, at a laptop's width (1366 px) and a phone's (390 px):
the FR / EN switch continues the same dialog in the other language (what was said stays on screen, the
server's dialog changes language and is not archived, a reload shows it all again), the menu's personal-data
form sends CV5's chat/gdpr calls and confirms them, the rewording buttons have no stray "—" between them, and
the demo page's header fits. Screenshots go to test-results/chatbox/."""

import re

import pytest
from playwright.sync_api import expect

from dialogs.models import Dialog, GdprRequest, Interaction
from knowledge.demo.seed import BOT_UUID
from tests.browser import screenshots
from tests.e2e.conftest import ChatPage, browser, demo_bot_live  # noqa: F401 (fixtures)
from tests.e2e.test_demo_chat import ANSWERS, BUBBLES, ask, stored_context

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)

shot = screenshots("chatbox")
WIDTHS = {"laptop": (1366, 900), "phone": (390, 844)}
CLIENT_KEY = f"dydu.chatbox.clientId_{BOT_UUID}"


@pytest.fixture(params=list(WIDTHS))
def chat(request, browser, live_server, demo_bot_live):  # noqa: F811
    """The demo page at one of the widths (a fresh context: empty localStorage), recording API calls."""
    width, height = WIDTHS[request.param]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="fr-FR")
    context.set_default_timeout(10_000)
    page = ChatPage(context.new_page(), live_server.url + "/demo/")
    page.size = request.param
    yield page
    context.close()


def opened(chat) -> tuple:
    """The demo page with the chatbox open on its welcome (a phone's width opens it with the launcher)."""
    page = chat.page
    page.goto(chat.url)
    if chat.size == "phone":
        page.get_by_role("button", name="Ouvrir la discussion avec Clara").click()
    answers = page.locator(ANSWERS)
    expect(answers.first).to_contain_text("je suis Clara")
    return page, answers


def shown(page) -> list[str]:
    """Each bubble's text as seen (without the labels only screen readers get, "Vous :" / "You:")."""
    return page.locator(BUBBLES).evaluate_all(
        """bubbles => bubbles.map(bubble => {
            const copy = bubble.cloneNode(true);
            copy.querySelectorAll('.dcb-sr').forEach(label => label.remove());
            return copy.textContent.replace(/\\s+/g, ' ').trim();
        })"""
    )


def language_button(page, code: str):
    return page.get_by_role("group", name=re.compile("Langue de la discussion|Chat language")).get_by_role(
        "button", name=code, exact=True
    )


def menu_item(page, name: str):
    page.get_by_role("button", name=re.compile("Plus d'options|More options")).click()
    return page.get_by_role("menuitem", name=name)


def test_the_language_switch_continues_the_same_dialog(chat):
    page, answers = opened(chat)
    ask(page, "Quels sont vos horaires d'ouverture ?")
    expect(answers).to_have_count(2)
    expect(answers.last).to_contain_text("mardi au samedi")
    context_id = stored_context(page)
    french = shown(page)
    chat.api.clear()

    language_button(page, "EN").click()
    # The start screen speaks English; what was said before stays as it was, under it.
    expect(answers.first).to_contain_text("Hello, I am Clara")
    expect(page.get_by_role("textbox", name="Your question")).to_have_attribute("placeholder", "Ask your question…")
    expect(language_button(page, "EN")).to_have_attribute("aria-pressed", "true")
    expect(answers).to_have_count(2)
    expect(page.locator(".dcb-row-user .dcb-text")).to_have_text(["Quels sont vos horaires d'ouverture ?"])
    expect(answers.last).to_contain_text("mardi au samedi")
    assert shown(page)[1:] == french[1:]
    shot(page, f"language-switched-{chat.size}")

    # The server was told on the same context (the welcome, not stored as an exchange); nothing was reset.
    [(path, welcome)] = [(path, fields) for _, path, fields in chat.api.calls if path.startswith("chat/talk/")]
    assert path == f"chat/talk/{BOT_UUID}/{context_id}"
    assert (welcome["userInput"], welcome["language"], welcome["doNotRegisterInteraction"]) == (
        "#welcome#",
        "en",
        "true",
    )
    assert stored_context(page) == context_id
    dialog = Dialog.objects.get(uuid=context_id)
    assert dialog.language == "en" and dialog.archived_at is None

    ask(page, "What are your opening hours?")
    expect(answers).to_have_count(3)
    expect(answers.last).to_contain_text("Tuesday to Saturday")
    assert chat.api.talks()[-1]["language"] == "en"
    assert chat.api.calls[-1][1] == f"chat/talk/{BOT_UUID}/{context_id}"
    stored = Interaction.objects.filter(dialog__uuid=context_id).order_by("created_at", "id")
    assert [(row.user_input, row.language) for row in stored] == [
        ("Quels sont vos horaires d'ouverture ?", "fr"),
        ("What are your opening hours?", "en"),
    ]

    # A reload shows the same conversation, in English, from the history, without a talk.
    before = shown(page)
    chat.api.clear()
    page.reload()
    if chat.size == "phone":  # the open panel is remembered, even where it covers the page
        expect(page.get_by_role("log")).to_be_visible()
    expect(page.locator(BUBBLES)).to_have_count(len(before))
    assert shown(page) == before
    expect(page.get_by_role("textbox", name="Your question")).to_be_visible()
    assert f"POST chat/history/{BOT_UUID}" in chat.api.paths()
    assert chat.api.talks() == []
    assert stored_context(page) == context_id
    shot(page, f"language-reloaded-{chat.size}")

    # Back to French: still the same dialog.
    language_button(page, "FR").click()
    expect(answers.first).to_contain_text("je suis Clara")
    expect(answers).to_have_count(3)
    assert stored_context(page) == context_id
    assert Dialog.objects.get(uuid=context_id).language == "fr"
    assert Dialog.objects.filter(bot__uuid=BOT_UUID).count() == 1
    assert chat.errors == []


def test_the_personal_data_form_sends_the_requests_and_confirms(chat):
    page, answers = opened(chat)
    ask(page, "Quels sont vos horaires d'ouverture ?")
    expect(answers).to_have_count(2)
    client_id = page.evaluate(f"localStorage.getItem('{CLIENT_KEY}')")

    menu_item(page, "Mes données personnelles").click()
    form = page.get_by_test_id("gdpr")
    expect(form.get_by_role("heading", name="Vos données personnelles")).to_be_visible()
    expect(page.get_by_role("log")).to_be_hidden()  # the form stands in for the conversation meanwhile
    send = form.get_by_role("button", name="Envoyer la demande")
    get, delete = form.get_by_label("Recevoir mes données"), form.get_by_label("Supprimer mes données")
    mail = form.get_by_label("Votre adresse e-mail")
    shot(page, f"gdpr-form-{chat.size}")

    # Nothing ticked, then an address the browser refuses: said under the form, nothing sent.
    send.click()
    expect(form.get_by_role("alert")).to_have_text("Cochez au moins une demande.")
    get.check()
    delete.check()
    mail.fill("marie@")
    send.click()
    expect(form.get_by_role("alert")).to_have_text("Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.")
    expect(mail).to_have_attribute("aria-invalid", "true")
    shot(page, f"gdpr-refused-{chat.size}")
    # An address the browser takes and the server refuses (no domain): the server's 400 says so, and no
    # request is recorded.
    mail.fill("marie@exemple")
    send.click()
    expect(form.get_by_role("alert")).to_have_text("Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.")
    assert not GdprRequest.objects.exists()

    # The second request fails on the way: the first is recorded and unticked, the retry sends the second.
    page.route(
        "**/servlet/api/chat/gdpr/**",
        lambda route: route.abort() if "object=Delete" in (route.request.post_data or "") else route.fallback(),
    )
    mail.fill("marie@example.org")
    send.click()
    expect(form.get_by_role("alert")).to_have_text("Votre demande n'a pas pu être envoyée. Réessayez dans un instant.")
    expect(get).not_to_be_checked()
    expect(delete).to_be_checked()
    assert list(GdprRequest.objects.values_list("object", flat=True)) == ["Get"]
    page.unroute("**/servlet/api/chat/gdpr/**")
    send.click()

    done = form.get_by_test_id("gdpr-done")
    expect(done).to_contain_text("Demande enregistrée")
    expect(done.get_by_role("listitem")).to_have_text(["Recevoir mes données", "Supprimer mes données"])
    expect(done).to_contain_text("Notre équipe vous répondra à l'adresse marie@example.org.")
    shot(page, f"gdpr-done-{chat.size}")
    requests = GdprRequest.objects.order_by("id")
    assert [(r.object, r.client_id, r.mail, r.language, r.status) for r in requests] == [
        ("Get", client_id, "marie@example.org", "fr", "pending"),
        ("Delete", client_id, "marie@example.org", "fr", "pending"),
    ]
    sent = [fields for _, path, fields in chat.api.calls if path == f"chat/gdpr/{BOT_UUID}"]
    assert {tuple(sorted(fields)) for fields in sent} == {("clientId", "language", "mail", "object")}
    assert [fields["object"] for fields in sent] == ["Get", "Get", "Delete", "Delete"]  # refused, then recorded

    # Back to the conversation, as it was.
    done.get_by_role("button", name="Retour à la conversation").click()
    expect(page.get_by_role("log")).to_be_visible()
    expect(answers).to_have_count(2)
    expect(page.get_by_role("textbox", name="Votre question")).to_be_focused()
    assert chat.errors == []


def test_the_personal_data_form_follows_the_language(chat):
    page, _ = opened(chat)
    language_button(page, "EN").click()
    expect(page.locator(ANSWERS).first).to_contain_text("Hello, I am Clara")
    menu_item(page, "My personal data").click()
    form = page.get_by_test_id("gdpr")
    expect(form.get_by_role("heading", name="Your personal data")).to_be_visible()
    form.get_by_label("Send me my data").check()
    form.get_by_label("Your e-mail address").fill("mary@example.org")
    form.get_by_role("button", name="Send the request").click()
    expect(form.get_by_test_id("gdpr-done")).to_contain_text("Our team will answer you at mary@example.org.")
    shot(page, f"gdpr-done-en-{chat.size}")
    [wanted] = GdprRequest.objects.all()
    assert (wanted.object, wanted.language) == ("Get", "en")
    # Escape closes the form first, then the panel.
    page.keyboard.press("Escape")
    expect(page.get_by_role("log")).to_be_visible()
    assert chat.errors == []


def test_rewording_buttons_have_no_stray_separator(chat):
    page, answers = opened(chat)
    ask(page, "J'ai perdu ma carte")
    expect(answers).to_have_count(2)
    lost = answers.last
    buttons = lost.locator("a.reword")
    expect(buttons).to_have_text(["Oui, elle a été volée", "Non, je l'ai perdue"])
    bubble = lost.locator(".dcb-bubble", has=page.locator("a.reword"))
    assert "—" not in bubble.inner_text()
    # The answer as the server stores and sends it still has the dash (CV5 shows these links in the text).
    assert " — " in Interaction.objects.get(user_input="J'ai perdu ma carte").answer
    shot(page, f"rewording-buttons-{chat.size}", shown=lost)
    # The quick replies' own template neither.
    ask(page, "Quelles cartes proposez-vous ?")
    expect(answers).to_have_count(3)
    expect(answers.last.locator(".dcb-quick-reply")).to_have_count(3)
    assert "—" not in answers.last.inner_text()
    buttons.last.click()
    expect(answers).to_have_count(4)
    assert chat.errors == []


def test_the_demo_page_and_the_chatbox_header_fit(chat):
    page, _ = opened(chat)
    width = WIDTHS[chat.size][0]
    back_office = page.get_by_role("banner").get_by_role("link", name="Back office")
    box = back_office.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # The chatbox's header: its title keeps room beside the language switch, the menu and the close button.
    host = page.locator("#dydu-chatbox")
    title = host.locator(".dcb-title").bounding_box()
    close = host.get_by_role("button", name="Réduire la discussion").bounding_box()
    assert title["width"] >= 40 and close["x"] + close["width"] <= width
    page.get_by_role("button", name="Plus d'options").click()
    menu = host.get_by_role("menu").bounding_box()
    assert menu["x"] >= 0 and menu["x"] + menu["width"] <= width
    shot(page, f"demo-page-{chat.size}")
    page.keyboard.press("Escape")
    expect(host.get_by_role("menu")).to_be_hidden()
    if chat.size == "phone":
        page.get_by_role("button", name="Réduire la discussion").click()
        shot(page, f"demo-page-closed-{chat.size}")
        assert page.get_by_role("banner").get_by_role("link", name="Back office").is_visible()


def test_a_question_asked_during_the_start_up_stays_on_screen(chat):
    """The page's sample buttons ask through dyduChatbox.ask, which opens the chatbox: a question asked while
    the start-up still waits for the welcome stays on screen, under the start screen, with its answer."""
    page = chat.page
    held = []
    page.route("**/servlet/api/chat/talk/**", lambda route: held.append(route))
    page.goto(chat.url)
    page.locator("[data-ask='Combien coûte le compte ?']").click()
    expect(page.locator(".dcb-row-user .dcb-text")).to_have_text(["Combien coûte le compte ?"])
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(50)
    [welcome] = held  # the question waits for the start-up
    assert "userInput=%23welcome%23" in welcome.request.post_data
    page.unroute("**/servlet/api/chat/talk/**")
    welcome.fallback()
    answers = page.locator(ANSWERS)
    expect(answers).to_have_count(2)
    expect(answers.first).to_contain_text("je suis Clara")
    expect(answers.last).to_contain_text("2 € par mois")
    expect(page.locator(".dcb-row-user .dcb-text")).to_have_text(["Combien coûte le compte ?"])
    assert [talk["userInput"] for talk in chat.api.talks()] == ["#welcome#", "Combien coûte le compte ?"]
    assert chat.errors == []
