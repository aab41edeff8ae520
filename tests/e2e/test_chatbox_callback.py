"""Nobody there, in our own chatbox, in Debian's chromium: on the demo page, with no operator online, a visitor
who asks for a human gets, under the answer, a button (the answer's `callback` label) instead of the link to the
callback page; it opens a form in the conversation (phone, name), in the chatbox's language, reached from the
keyboard. The Callback servlet refuses a number that is not one: its refusal shows under the field, what was typed
stays and nothing is stored; a real number is stored with the chatbox's dialog and the form gives way to a thank
you. In French at a laptop's width and a phone's, in English (switched in the chatbox) at a phone's; an empty number
is asked for, Cancel goes back to the button, a language switch relabels an open form. Screenshots go to
test-results/chatbox-callback/."""

import json

import pytest
from playwright.sync_api import expect

from livechat import callbacks
from livechat.models import Callback
from tests.browser import screenshots
from tests.e2e.conftest import ChatPage  # browser, live_server, demo_bot_live: conftest's fixtures
from tests.e2e.test_chatbox_language_gdpr import language_button
from tests.e2e.test_demo_chat import ANSWERS, ask, stored_context

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)

shot = screenshots("chatbox-callback", animations="disabled")
WIDTHS = {"laptop": (1366, 900), "phone": (390, 844)}
CALLBACK_PATH = "/servlet/api/callback/"
WORDS = {
    "fr": {
        "question": "Je veux parler à un conseiller",
        "nobody": "Aucun conseiller n'est disponible",
        "offer": "Être rappelé par un conseiller",
        "phone": "Numéro de téléphone",
        "name": "Votre nom",
        "missing": "Indiquez le numéro de téléphone auquel vous rappeler.",
        "invalid": "Ce n'est pas un numéro de téléphone : 6 à 15 chiffres, précédés de + pour un numéro international.",
        "thanks": "Merci : un conseiller vous rappellera au {phone}.",
    },
    "en": {
        "question": "I want to talk to an advisor",
        "nobody": "No advisor is available right now",
        "offer": "Ask an advisor to call you back",
        "phone": "Phone number",
        "name": "Your name",
        "missing": "Please give the phone number to call.",
        "invalid": "This is not a phone number: 6 to 15 digits, with + first for an international one.",
        "thanks": "Thank you: an advisor will call you back on {phone}.",
    },
}


@pytest.fixture
def limit_cleared(demo_bot_live):
    """The browser tests share an address (and, without Redis, the process's cache): the callbacks other tests
    asked must not count against this one's (5 per address per 10 minutes)."""

    def clear():
        callbacks.cache.delete_many(
            [f"livechat:callbacks:{demo_bot_live.uuid}:{address}" for address in ("127.0.0.1", "::1", "unknown")]
        )

    clear()
    yield
    clear()


def chatbox(browser, live_server, size):
    width, height = WIDTHS[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="fr-FR")
    context.set_default_timeout(10_000)
    chat = ChatPage(context.new_page(), live_server.url + "/demo/")
    chat.page.goto(chat.url)
    if size == "phone":
        chat.page.get_by_role("button", name="Ouvrir la discussion avec Clara").click()
    expect(chat.page.locator(ANSWERS).first).to_contain_text("je suis Clara")
    return context, chat


def send_form(page, field):
    """Enter in a field of the form sends it; the servlet's answer: (status, JSON body)."""
    with page.expect_response(lambda response: CALLBACK_PATH in response.url) as answered:
        field.press("Enter")
    response = answered.value
    return response.status, json.loads(response.text())


def fits(page) -> bool:
    """Nothing wider than the screen, nor than the conversation's column."""
    width = page.viewport_size["width"]
    return page.evaluate("() => document.documentElement.scrollWidth") <= width and page.locator(".dcb-log").evaluate(
        "log => log.scrollWidth <= log.clientWidth"
    )


def ask_for_a_human_and_call_back(chat, size: str, language: str, bad: str, good: str):
    """The offer, the form from the keyboard, `bad` refused, `good` stored and thanked: the stored callback."""
    page, words = chat.page, WORDS[language]
    answers = page.locator(ANSWERS)
    count = answers.count()
    ask(page, words["question"])
    expect(answers).to_have_count(count + 1)
    answer = answers.last
    expect(answer).to_contain_text(words["nobody"])
    context_id = stored_context(page)

    # The answer's `callback` is a button; the page's link stays in the text for chatboxes without a form, hidden.
    offer = answer.get_by_role("button", name=words["offer"])
    expect(offer).to_be_visible()
    expect(offer).to_have_attribute("aria-expanded", "false")
    link = answer.locator("a.dydu-callback-link")
    expect(link).to_have_count(1)
    expect(link).to_be_hidden()
    assert "/livechat/callback/" in link.get_attribute("href")
    shot(page, f"01-offer-{language}-{size}", shown=answer)

    # From the keyboard: the button opens the form, the phone field gets the focus.
    offer.focus()
    page.keyboard.press("Enter")
    form = answer.locator("form.dcb-callback-form")
    expect(form).to_be_visible()
    expect(offer).to_be_hidden()
    phone, name = answer.get_by_label(words["phone"]), answer.get_by_label(words["name"])
    expect(phone).to_be_focused()
    expect(answer.locator(".dcb-callback")).to_have_attribute("lang", language)
    assert fits(page)
    shot(page, f"02-form-{language}-{size}", shown=form)

    # The server refuses the number: its refusal under the field, in the chatbox's language; nothing lost or stored.
    phone.fill(bad)
    name.fill("Camille")
    status, body = send_form(page, phone)
    assert (status, body["code"], body["field"]) == (400, "INVALID_FIELD", "phone")
    error = answer.get_by_test_id("callback-error")
    expect(error).to_have_text(words["invalid"])
    expect(phone).to_have_attribute("aria-invalid", "true")
    expect(phone).to_be_focused()
    expect(phone).to_have_value(bad)
    expect(name).to_have_value("Camille")
    assert not Callback.objects.exists()
    assert fits(page)
    shot(page, f"03-refused-{language}-{size}", shown=form)

    # A real number (Enter from the name field too): stored, and the form gives way to the thanks.
    phone.fill(good)
    expect(error).to_be_hidden()
    status, body = send_form(page, name)
    assert (status, body["phone"], body["contextId"]) == (201, good, context_id)
    done = answer.get_by_test_id("callback-done")
    expect(done).to_have_text(words["thanks"].format(phone=good))
    expect(done).to_be_focused()
    expect(form).to_be_hidden()
    assert fits(page)
    shot(page, f"04-thanks-{language}-{size}", shown=answer)

    sent = [fields for method, path, fields in chat.api.calls if path.startswith("callback/")]
    assert [(fields["phone"], fields["contextId"], fields["language"]) for fields in sent] == [
        (bad, context_id, language),
        (good, context_id, language),
    ]
    assert chat.errors == []
    callback = Callback.objects.select_related("dialog").get()
    assert str(callback.dialog.uuid) == context_id
    return callback


@pytest.mark.parametrize("size", list(WIDTHS))
def test_the_chatbox_offers_its_own_callback_form(browser, live_server, limit_cleared, size):
    context, chat = chatbox(browser, live_server, size)
    try:
        callback = ask_for_a_human_and_call_back(chat, size, "fr", bad="pas un numéro", good="06 12 34 56 78")
        assert (callback.phone, callback.name, callback.language, callback.source) == (
            "06 12 34 56 78",
            "Camille",
            "fr",
            "chatbox",
        )
    finally:
        context.close()


def test_the_callback_form_in_english(browser, live_server, limit_cleared):
    context, chat = chatbox(browser, live_server, "phone")
    try:
        page = chat.page
        language_button(page, "EN").click()
        expect(language_button(page, "EN")).to_have_attribute("aria-pressed", "true")
        expect(page.locator(ANSWERS).first).to_contain_text("I am Clara")
        callback = ask_for_a_human_and_call_back(chat, "phone", "en", bad="12345", good="+44 20 7946 0018")
        assert (callback.phone, callback.name, callback.language) == ("+44 20 7946 0018", "Camille", "en")
    finally:
        context.close()


def test_an_empty_number_is_asked_for_and_cancel_goes_back_to_the_button(browser, live_server, limit_cleared):
    context, chat = chatbox(browser, live_server, "laptop")
    try:
        page, words = chat.page, WORDS["fr"]
        ask(page, words["question"])
        answer = page.locator(ANSWERS).last
        offer = answer.get_by_role("button", name=words["offer"])
        offer.click()
        phone = answer.get_by_label(words["phone"])
        status, body = send_form(page, phone)
        assert (status, body["code"]) == (400, "MISSING_FIELD")
        expect(answer.get_by_test_id("callback-error")).to_have_text(words["missing"])

        # Cancel closes the form and gives the focus back to the button; the form opens again as it was left.
        phone.fill("06 12")
        answer.get_by_role("button", name="Annuler").click()
        expect(offer).to_be_focused()
        expect(answer.locator("form.dcb-callback-form")).to_be_hidden()
        offer.click()
        expect(phone).to_have_value("06 12")
        expect(phone).to_be_focused()

        # A language switch while the form is open speaks the other language (the offer's words are the server's).
        language_button(page, "EN").click()
        expect(answer.get_by_label("Phone number")).to_be_visible()
        expect(answer.get_by_role("button", name="Call me back")).to_be_visible()
        assert not Callback.objects.exists()
        assert chat.errors == []
    finally:
        context.close()
