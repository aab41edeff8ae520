"""Clicks in a real browser (Debian's chromium) on the demo page: a link to another item answers it, a
page link opens its page and is recorded with nothing shown, a space redirection's link moves the chat
to space Pro. Screenshots go to test-results/clicks/."""

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from dialogs.models import Dialog, Interaction
from tests.e2e.test_demo_chat import ANSWERS, ask, stored_context

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "clicks"


def shot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(500)  # the last bubble's fade-in ends: the picture shows it whole
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_links_in_answers_in_the_browser(chat_page):
    page, api = chat_page.page, chat_page.api
    page.goto(chat_page.url)
    answers = page.locator(ANSWERS)
    expect(answers.first).to_contain_text("je suis Clara")

    # A link to another item answers that item.
    ask(page, "Où se trouve l'agence la plus proche ?")
    expect(answers).to_have_count(2)
    answers.last.locator("a.reword", has_text="Quels sont vos horaires d'ouverture ?").click()
    expect(answers).to_have_count(3)
    expect(answers.last).to_contain_text("mardi au samedi")
    assert json.loads(api.talks()[-1]["extraParameters"]) == {"type": "redirection_knowledge"}
    shot(page, "1-knowledge-link")

    # A page link opens its page in a new tab; the click is recorded and nothing is shown in the chat.
    with page.context.expect_page() as opened:
        answers.nth(1).locator('a[href="https://example.org/agences"]').click()
    opened.value.close()
    context_id = stored_context(page)
    clicked = Interaction.objects.filter(dialog__uuid=context_id, origin="redirection_newpage")
    for _ in range(50):
        if clicked.exists():
            break
        page.wait_for_timeout(100)
    assert clicked.get().user_input == "https://example.org/agences"
    assert json.loads(api.talks()[-1]["extraParameters"]) == {"type": "redirection_newpage"}
    expect(answers).to_have_count(3)
    shot(page, "2-page-link-nothing-shown")

    # Only space Pro answers this: the bot offers it, and the click moves the chat there.
    ask(page, "Comment obtenir un terminal de paiement ?")
    expect(answers).to_have_count(4)
    expect(answers.last).to_contain_text("l'espace « Pro » en a une")
    shot(page, "3-space-offered")
    answers.last.locator("a.reword").click()
    expect(answers).to_have_count(5)
    expect(answers.last).to_contain_text("terminal de paiement")
    assert Dialog.objects.get(uuid=context_id).space == "Pro"
    ask(page, "Quels sont vos horaires d'ouverture ?")
    expect(answers).to_have_count(6)
    expect(answers.last).to_contain_text("du lundi au vendredi, de 8 h à 19 h")
    assert api.talks()[-1]["space"] == "Pro"
    shot(page, "4-space-followed")
    assert chat_page.errors == []
