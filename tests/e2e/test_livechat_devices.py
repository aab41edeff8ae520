"""The operators' console at home on a phone (390 px), a tablet (768 px) and a laptop (1366 px), in chromium
against a real server process (daphne, as `make run` serves it), with a visitor on the demo chat page: the
operator logs in from the back office's form and lands in the console; a visitor asks for a human and the
console rings and counts it in the title; the operator opens the dialog (on a phone the list gives way to
the conversation), is suggested the bot's answer to the visitor's message, inserts it, edits it and sends
it; the visitor gets it, and the operator's message says it came from a suggestion. Nothing is wider than
the screen. The page speaks the operator's language (French at 768 px). Screenshots: test-results/devices/."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser import new_pages, screenshots
from tests.servers import Platform

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)

shot = screenshots("devices")
OPERATOR, PASSWORD = "noa", "noa-pass-2026-e2e"
QUESTION = "Je n'ai toujours pas reçu ma nouvelle carte"
SUGGESTED = "Une carte arrive sous 7 jours ouvrés après la commande. Passé ce délai, appelez-nous."
DEVICES = {"phone": (390, 844, "en"), "tablet": (768, 1024, "fr"), "laptop": (1366, 900, "en")}
TITLES = {"en": "Suggested answers", "fr": "Réponses suggérées"}
AVAILABLE = {"en": "Available", "fr": "Disponible"}
# Counts the console's chimes: each one starts two notes (console.js chime()).
COUNT_NOTES = """
window.__notes = 0;
const Original = window.AudioContext;
window.AudioContext = class extends Original {
  createOscillator() { window.__notes += 1; return super.createOscillator(); }
};
"""


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("livechat-devices")) as running:
        running.add_operator(OPERATOR, PASSWORD)
        yield running


def fits(page):
    """Nothing of the page is wider than the screen, and nothing the operator uses is cut off by its edge (a
    panel slid out of the screen, whole, is not on it)."""
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for box in page.locator("button:visible, select:visible, textarea:visible").all():
        bounds = box.bounding_box()
        if not bounds or not bounds["width"] or bounds["x"] >= width or bounds["x"] + bounds["width"] <= 0:
            continue
        assert bounds["x"] >= 0 and bounds["x"] + bounds["width"] <= width + 1, box.evaluate("e => e.outerHTML")


@pytest.mark.parametrize("device", list(DEVICES))
def test_an_operator_answers_a_visitor_from_a_phone_a_tablet_and_a_laptop(platform, browser, device):
    server = platform.servers[0]
    width, height, language = DEVICES[device]
    with (
        new_pages(browser, width=width, height=height, locale="fr-FR", timeout=15_000) as device_page,
        new_pages(browser, width=1280, height=860, locale="fr-FR", timeout=15_000) as new,
    ):
        console = device_page(has_touch=device != "laptop")
        errors = []
        console.on("pageerror", lambda error: errors.append(str(error)))
        console.context.add_cookies([{"name": "django_language", "value": language, "url": server.base}])
        console.add_init_script(COUNT_NOTES)
        # The back office's own login form, as an operator opens it in the morning: the console is home.
        console.goto(server.url("/admin/login/"))
        console.fill("#id_username", OPERATOR)
        console.fill("#id_password", PASSWORD)
        console.click("[type=submit]")
        expect(console).to_have_url(server.url("/livechat/"))
        expect(console.locator("html")).to_have_attribute("lang", language)
        status = console.get_by_test_id("status-select")
        expect(status).to_be_enabled()
        assert errors == []
        status.select_option("available")
        expect(console.locator("#me-load")).to_contain_text(AVAILABLE[language])
        fits(console)
        shot(console, f"{device}-01-home")

        visitor = new()
        visitor.goto(server.url("/demo/"))
        expect(visitor.locator(".dcb-row-bot").first).to_contain_text("je suis Clara")
        visitor.locator("#dcb-input").fill("Je veux parler à un conseiller")
        visitor.locator("#dcb-input").press("Enter")
        expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")

        # The console rings and counts the new dialog in its title, whatever the screen.
        item = console.get_by_test_id("dialog-item").first
        expect(item).to_be_visible()
        expect(console).to_have_title(re.compile(r"^\(1\) "))
        assert console.evaluate("window.__notes") >= 2
        visitor.locator("#dcb-input").fill(QUESTION)
        visitor.locator("#dcb-input").press("Enter")
        fits(console)
        shot(console, f"{device}-02-ringing")

        item.click()
        conversation = console.locator("#conversation")
        expect(conversation).to_be_visible()
        expect(console).not_to_have_title(re.compile(r"^\("))
        transcript = console.get_by_test_id("transcript")
        expect(transcript.locator('[data-from="visitor"]').last).to_contain_text(QUESTION)
        sidebar = console.locator(".sidebar")
        if device == "phone":
            expect(sidebar).to_be_hidden()  # one pane at a time
            expect(console.get_by_test_id("back-to-list")).to_be_visible()
        else:
            expect(sidebar).to_be_visible()
            expect(console.get_by_test_id("back-to-list")).to_be_hidden()

        # The bot's answer to the visitor's message, suggested in the operator's language's words.
        suggestions = console.get_by_test_id("suggestions")
        expect(suggestions).to_be_visible()
        expect(suggestions.locator(".suggestions-title")).to_have_text(TITLES[language])
        card = console.get_by_test_id("suggestion").first
        expect(card).to_contain_text("Card not arrived")
        fits(console)
        shot(console, f"{device}-03-suggested")

        card.click()
        composer = console.get_by_test_id("composer-input")
        expect(composer).to_have_value(SUGGESTED)
        expect(composer).to_be_focused()
        composer.press("End")
        composer.type(" Bonne journée !")
        console.get_by_test_id("composer-send").click()
        expect(visitor.locator('[data-from="operator"]').last).to_contain_text(SUGGESTED + " Bonne journée !")
        mark = transcript.get_by_test_id("from-suggestion").last
        expect(mark).to_contain_text("Card not arrived")
        expect(suggestions).to_be_hidden()  # answered: the next message brings new ones
        fits(console)
        shot(console, f"{device}-04-sent")

        if device == "phone":
            console.get_by_test_id("back-to-list").click()
            expect(sidebar).to_be_visible()
            expect(conversation).to_be_hidden()
            fits(console)
            item.click()
            expect(conversation).to_be_visible()
        if device != "laptop":  # the visitor and the actions slide over the conversation
            console.locator("#details-toggle").click()
            expect(console.locator("#details")).to_be_in_viewport()
            # In the viewport as soon as it starts sliding in (0.2 s, console.css): measured once in place.
            expect(console.locator("#details")).to_have_css("transform", "none")
            fits(console)
            shot(console, f"{device}-05-details")
            # Its own close button brings the conversation back (the toggle is under the panel).
            console.get_by_test_id("details-close").click()
            expect(console.locator("#details")).not_to_be_in_viewport()
            expect(console.get_by_test_id("composer-input")).to_be_in_viewport()
            console.locator("#details-toggle").click()

        console.get_by_test_id("end-button").click()
        console.get_by_test_id("end-confirm").click()
        expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "off")
        shot(console, f"{device}-06-ended")
        assert errors == []
