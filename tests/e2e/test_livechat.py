"""Live chat in real browsers against a real server process (daphne, as `make run` serves it): a visitor on
the demo chat page and an operator in the console, in two browser contexts, hold a conversation from the
handover to its end, over the websocket and over REST polling. Screenshots go to test-results/livechat/."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser import new_pages, screenshots
from tests.servers import Platform

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)

shot = screenshots("livechat")
OPERATOR, PASSWORD = "lea", "lea-pass-2026-e2e"
SHOWN_NAME = "Léa"  # what visitors see: the operator sets it in the console (never the login)


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("livechat-e2e")) as running:
        running.add_operator(OPERATOR, PASSWORD)
        yield running


@pytest.fixture
def contexts(browser):
    with new_pages(browser, width=1280, height=860, locale="fr-FR", timeout=15_000) as new:
        yield new


def open_console(page, server):
    page.goto(server.url("/livechat/"))
    expect(page).to_have_url(re.compile(r"/admin/login/"))
    page.fill("#id_username", OPERATOR)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    # The whole address: the login page's own ends with ?next=/livechat/ too.
    expect(page).to_have_url(server.url("/livechat/"))
    status = page.get_by_test_id("status-select")
    expect(status).to_be_enabled()
    status.select_option("available")
    expect(status).to_have_value("available")
    # The select changes at once; the server's answer is what makes the operator reachable.
    expect(page.locator("#me-load")).to_contain_text("Disponible")
    shown = page.get_by_test_id("shown-name")
    if shown.input_value() != SHOWN_NAME:
        shown.fill(SHOWN_NAME)
        shown.press("Enter")
        expect(page.locator("#shown-name-state")).to_have_text(re.compile(".+"))  # saved, the server said
    expect(page.locator("#me-name")).to_have_text(SHOWN_NAME)
    return page


def open_chat(page, server):
    page.goto(server.url("/demo/"))
    expect(page.locator(".dcb-row-bot").first).to_contain_text("je suis Clara")
    return page


def say(page, text: str):
    box = page.locator("#dcb-input")
    box.fill(text)
    box.press("Enter")


def chatbox_state(page) -> str:
    return page.locator("#dydu-chatbox").get_attribute("data-livechat")


def test_a_visitor_and_an_operator_hold_a_live_conversation(platform, contexts):
    server = platform.servers[0]
    console = open_console(contexts(), server)
    shot(console, "01-console-available")
    visitor = open_chat(contexts(), server)

    # The handover: the visitor asks for a human and is told who answers.
    say(visitor, "Je veux parler à un conseiller")
    notice = visitor.get_by_test_id("livechat-notice").last
    expect(notice).to_contain_text("Vous êtes en relation avec Léa")
    expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
    expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-transport", "websocket")
    shot(visitor, "02-visitor-live")

    # The dialog rings in the console; the operator opens it and sees the bot conversation before it.
    item = console.get_by_test_id("dialog-item").first
    expect(item).to_be_visible()
    item.click()
    transcript = console.get_by_test_id("transcript")
    expect(transcript.locator('[data-testid="line"][data-from="visitor"]').first).to_contain_text(
        "Je veux parler à un conseiller"
    )
    expect(visitor.get_by_test_id("livechat-notice").last).to_contain_text("Léa a rejoint la conversation")

    # The operator writes; the visitor sees a human's bubble, and the operator's typing before it.
    composer = console.get_by_test_id("composer-input")
    composer.fill("Bonjour, je suis Léa. Que puis-je faire pour vous ?")
    expect(visitor.get_by_test_id("operator-typing")).to_be_visible()
    console.get_by_test_id("composer-send").click()
    operator_bubble = visitor.locator('[data-from="operator"]').last
    expect(operator_bubble).to_contain_text("Que puis-je faire pour vous ?")

    # The visitor types (the operator sees it) and writes; the bot stays silent.
    visitor.locator("#dcb-input").press_sequentially("Ma carte est bloq", delay=20)
    expect(console.get_by_test_id("visitor-typing")).to_contain_text("Ma carte est bloq")
    say(visitor, "Ma carte est bloquée depuis ce matin")
    expect(transcript.locator('[data-testid="line"][data-from="visitor"]').last).to_contain_text(
        "Ma carte est bloquée depuis ce matin"
    )
    details = console.get_by_test_id("visitor-details")
    expect(details).to_contain_text("/demo/")
    shot(console, "03-console-dialog")

    # A canned answer, found by search, goes out as the operator's message.
    console.get_by_test_id("canned-button").click()
    console.get_by_test_id("canned-search").fill("opposition")
    canned = console.get_by_test_id("canned-item").first
    expect(canned).to_contain_text("Carte mise en opposition")
    shot(console, "04-console-canned")
    canned.click()
    expect(composer).to_have_value(re.compile("votre carte est en opposition"))
    console.get_by_test_id("composer-send").click()
    expect(visitor.locator('[data-from="operator"]').last).to_contain_text("votre carte est en opposition")
    shot(visitor, "05-visitor-conversation")
    # The bot answered nothing while the human held the dialog.
    assert visitor.locator(".dcb-row-bot").count() == 1

    # A reload during live chat loses nothing and goes on.
    visitor.reload()
    expect(visitor.locator('[data-from="operator"]').last).to_contain_text("votre carte est en opposition")
    expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
    composer.fill("Autre chose ?")
    console.get_by_test_id("composer-send").click()
    expect(visitor.locator('[data-from="operator"]').last).to_contain_text("Autre chose ?")
    assert visitor.locator('[data-from="operator"]').filter(has_text="Autre chose ?").count() == 1

    # The operator ends it; the visitor is told and is back with the bot.
    console.get_by_test_id("end-button").click()
    console.get_by_test_id("end-confirm").click()
    expect(visitor.get_by_test_id("livechat-notice").last).to_contain_text("a terminé la conversation")
    expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "off")
    shot(visitor, "06-visitor-ended")
    shot(console, "07-console-ended")
    say(visitor, "Quels sont vos horaires d'ouverture ?")
    expect(visitor.locator(".dcb-row-bot").last).to_contain_text("mardi au samedi")


def test_live_chat_over_polling_when_the_websocket_cannot_open(platform, contexts):
    server = platform.servers[0]
    console = open_console(contexts(), server)
    visitor = contexts()
    # The visitor's network refuses websockets (a proxy that does not pass them): the chatbox polls.
    visitor.route_web_socket(re.compile(".*"), lambda socket: socket.close())
    open_chat(visitor, server)

    say(visitor, "Je veux parler à un conseiller")
    expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-transport", "polling")
    console.get_by_test_id("dialog-item").first.click()
    console.get_by_test_id("composer-input").fill("Bonjour, vous m'entendez ?")
    console.get_by_test_id("composer-send").click()
    expect(visitor.locator('[data-from="operator"]').last).to_contain_text("vous m'entendez ?")
    say(visitor, "Oui, très bien")
    transcript = console.get_by_test_id("transcript")
    expect(transcript.locator('[data-testid="line"][data-from="visitor"]').last).to_contain_text("Oui, très bien")
    shot(visitor, "08-visitor-polling")
    console.get_by_test_id("end-button").click()
    console.get_by_test_id("end-confirm").click()
    expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "off")


def test_the_queue_the_console_and_the_chatbox_show(platform, contexts):
    server = platform.servers[0]
    token = platform.admin_token()
    from tests.servers import Browser

    Browser(server).put_form(f"/servlet/api/operators/availability/{OPERATOR}", {"maxDialogs": "1"}, token=token)
    console = open_console(contexts(), server)
    first, second = open_chat(contexts(), server), open_chat(contexts(), server)
    say(first, "Je veux parler à un conseiller")
    expect(first.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
    say(second, "Je veux parler à un conseiller")
    expect(second.get_by_test_id("queue-banner")).to_contain_text("1")
    expect(console.get_by_test_id("queue-item")).to_have_count(1)
    shot(second, "09-visitor-queued")
    shot(console, "10-console-queue")

    # The operator ends the first dialog: the waiting visitor gets the operator.
    console.get_by_test_id("dialog-item").first.click()
    console.get_by_test_id("end-button").click()
    console.get_by_test_id("end-confirm").click()
    expect(second.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
    expect(console.get_by_test_id("queue-item")).to_have_count(0)
    expect(console.get_by_test_id("dialog-item")).to_have_count(1)
    Browser(server).put_form(f"/servlet/api/operators/availability/{OPERATOR}", {"maxDialogs": "3"}, token=token)
    console.get_by_test_id("dialog-item").first.click()
    console.get_by_test_id("end-button").click()
    console.get_by_test_id("end-confirm").click()
    expect(second.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "off")


def test_a_back_office_user_who_does_not_answer_visitors_gets_a_clear_page(platform, contexts):
    server = platform.servers[0]
    from tests.servers import Browser

    Browser(server).post_form(
        "/servlet/api/bousers",
        {"login": "rita", "password": "rita-pass-2026-e2e", "role": "reader"},
        token=platform.admin_token(),
    )
    page = contexts()
    page.goto(server.url("/livechat/"))
    page.fill("#id_username", "rita")
    page.fill("#id_password", "rita-pass-2026-e2e")
    page.click("[type=submit]")
    # The browser says French (fr-FR): so does the page, the servlet's reason too.
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.get_by_test_id("refusal-reason")).to_contain_text("Seuls les opérateurs et les administrateurs")
    shot(page, "11-not-an-operator")
