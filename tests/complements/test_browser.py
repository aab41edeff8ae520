"""In real browsers (Debian's chromium) against a real server process (daphne, as `make run` serves it):
the demo's card reminder comes once per dialog in the demo chat, then an operator in the console
searches the predefined answers (by theme, without accents, with the / shortcut), inserts one into the
reply box at the caret and sends it. Screenshots go to test-results/complements/."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import browser  # noqa: F401 (the module's chromium)

# The live-chat browser test's own platform (daphne with the operator lea), contexts and ways in.
from tests.e2e.test_livechat import contexts, open_chat, open_console, platform, say  # noqa: F401

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)

SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "complements"
REMINDER = "ne vous demandera jamais votre code secret"


def shot(page, name: str):
    """A screenshot once the bubbles' entry animations have ended (not caught half faded in)."""
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_the_reminder_comes_once_and_an_operator_inserts_a_predefined_answer(platform, contexts):  # noqa: F811
    server = platform.servers[0]
    # Reduced motion: the screenshots show the chat scrolled to its end, not halfway through a smooth scroll.
    visitor = open_chat(contexts(reduced_motion="reduce"), server)

    # The card reminder (a complementary answer, once per dialog) follows the first card answer only.
    say(visitor, "Comment activer ma carte ?")
    bubbles = visitor.locator(".dcb-bubble-bot")
    expect(bubbles).to_have_count(3)  # the welcome, the answer and the reminder in a bubble of its own
    expect(bubbles.last).to_contain_text(REMINDER)
    say(visitor, "Comment activer ma carte ?")
    expect(bubbles).to_have_count(4)
    expect(bubbles.last).not_to_contain_text(REMINDER)
    assert visitor.get_by_text(REMINDER).count() == 1
    shot(visitor, "01-visitor-reminder-once")

    console = open_console(contexts(reduced_motion="reduce"), server)
    say(visitor, "Je veux parler à un conseiller")
    expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
    console.get_by_test_id("dialog-item").first.click()
    composer = console.get_by_test_id("composer-input")
    expect(composer).to_be_enabled()

    # Search by theme: the answers of the tag Cartes, the theme shown beside the label.
    composer.fill("Merci de votre patience. ")
    console.get_by_test_id("canned-button").click()
    search = console.get_by_test_id("canned-search")
    search.fill("cartes")
    items = console.get_by_test_id("canned-item")
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("Carte mise en opposition")
    expect(items.first.get_by_test_id("canned-theme")).to_have_text("Cartes")
    shot(console, "02-console-canned-by-theme")

    # Without accents, and inserted where the caret is: after what the operator wrote.
    search.fill("cloture")
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("Clôture")
    shot(console, "03-console-canned-without-accents")
    search.press("Enter")
    expect(composer).to_have_value(
        "Merci de votre patience. Avez-vous d'autres questions ? Je vous souhaite une excellente journée."
    )
    shot(console, "04-console-inserted")
    console.get_by_test_id("composer-send").click()
    expect(visitor.locator('[data-from="operator"]').last).to_contain_text("Je vous souhaite une excellente journée.")

    # The / shortcut: "/oppo" in the reply box lists the matches; Enter replaces it with the answer.
    composer.fill("")
    composer.press_sequentially("/oppo", delay=30)
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("Carte mise en opposition")
    shot(console, "05-console-slash")
    composer.press("Enter")
    expect(composer).to_have_value(re.compile(r"^C'est fait : votre carte est en opposition\."))
    console.get_by_test_id("composer-send").click()
    expect(visitor.locator('[data-from="operator"]').last).to_contain_text("votre carte est en opposition")
    shot(visitor, "06-visitor-received")
