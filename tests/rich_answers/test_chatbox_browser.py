"""Our chatbox (static/chatbox/chatbox.js on the demo page /demo/) in Debian's chromium shows what
rich answers carry: the top questions of a fresh bot, quick replies, a product card, a carousel,
a sidebar, an answer's steps, bubbles split at <hr>, a GUI action and a URL redirection.
Screenshots go to test-results/rich_answers/."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser import screenshots
from tests.e2e.test_demo_chat import ask

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)

shot = screenshots("rich_answers")  # shot(page, name, shown): with `shown` scrolled whole into the chat's view
ANSWERS = ".dcb-row-bot:not(.dcb-typing)"


def test_the_chatbox_shows_every_kind_of_rich_answer(chat_page):
    page = chat_page.page
    page.goto(chat_page.url)
    answers = page.locator(ANSWERS)
    expect(answers.first).to_contain_text("je suis Clara")

    # A fresh install: no usage yet, so the top questions are the bot's featured ones.
    top = page.locator(".dcb-top .dcb-chip")
    expect(top).to_have_text(
        ["Quels sont vos horaires d'ouverture ?", "J'ai perdu ma carte", "Comment faire un virement ?"]
    )
    shot(page, "1-top-questions")

    # Quick replies: the template's buttons, each asking its question.
    ask(page, "Quelles cartes proposez-vous ?")
    expect(answers).to_have_count(2)
    replies = answers.last.locator(".dcb-quick .dcb-quick-reply a")
    expect(replies).to_have_text(["La carte Visa Premier", "Nos offres de compte", "J'ai perdu ma carte"])
    expect(answers.last.locator(".dcb-bubble")).to_contain_text("Nous avons une carte pour chaque usage")
    shot(page, "2-quick-replies", answers.last)

    # A product card, reached by clicking a quick reply: title, price, picture, buttons.
    replies.first.click()
    expect(answers).to_have_count(3)
    card = answers.last.get_by_test_id("product-card")
    expect(card.locator(".dcb-card-title")).to_have_text("Visa Premier")
    expect(card.locator(".dcb-card-numeric")).to_have_text("12,50 € / mois")
    expect(card.locator(".dcb-card-button a")).to_have_text(["Je veux parler à un conseiller", "En savoir plus"])
    image = card.locator(".dcb-card-image img")
    expect(image).to_have_attribute("alt", "Carte Visa Premier")
    assert image.evaluate("img => img.complete && img.naturalWidth") == 320
    shot(page, "3-product-card", answers.last)

    # A carousel: three cards, one at a time.
    ask(page, "Nos offres de compte")
    expect(answers).to_have_count(4)
    carousel = answers.last.get_by_test_id("carousel")
    titles = carousel.locator(".dcb-slide:not([hidden]) .dcb-card-title")
    expect(titles).to_have_text(["Compte Essentiel"])
    expect(carousel.locator(".dcb-slider-count")).to_have_text("1 sur 3")
    shot(page, "4-carousel-first", answers.last)
    carousel.get_by_role("button", name="Suivant").click()
    expect(titles).to_have_text(["Compte Confort"])
    expect(carousel.locator(".dcb-slider-count")).to_have_text("2 sur 3")
    shot(page, "5-carousel-second", answers.last)

    # A sidebar: the answer's "more" panel.
    ask(page, "Quels documents pour ouvrir un compte ?")
    expect(answers).to_have_count(5)
    sidebar = answers.last.get_by_test_id("sidebar")
    sidebar.locator("summary").click()
    expect(sidebar).to_contain_text("Un justificatif de domicile de moins de 3 mois")
    shot(page, "6-sidebar", answers.last)

    # Steps (nextStepResponse): one at a time, the last with its own sidebar.
    ask(page, "Comment activer le paiement sans contact ?")
    expect(answers).to_have_count(6)
    steps = answers.last.get_by_test_id("steps")
    expect(steps.locator(".dcb-slide:not([hidden]) .dcb-bubble")).to_contain_text("Étape 1")
    steps.get_by_role("button", name="Suivant").click()
    steps.get_by_role("button", name="Suivant").click()
    expect(steps.locator(".dcb-slider-count")).to_have_text("Étape 3 sur 3")
    expect(steps.locator(".dcb-slide:not([hidden]) .dcb-bubble")).to_contain_text("Étape 3")
    expect(steps.locator(".dcb-slide:not([hidden]) [data-testid=sidebar] summary")).to_have_text("Plafonds")
    shot(page, "7-steps", answers.last)

    # <hr/> splits an answer into bubbles.
    ask(page, "Comment sécuriser mon compte ?")
    expect(answers).to_have_count(7)
    expect(answers.last.locator(".dcb-bubble")).to_have_count(4)
    shot(page, "8-hr-bubbles", answers.last)

    # A GUI action calls the chatbox's window function it names: the input's placeholder.
    ask(page, "Je veux faire une réclamation")
    expect(answers).to_have_count(8)
    box = page.get_by_role("textbox", name=re.compile("Votre question"))
    expect(box).to_have_attribute("placeholder", "Décrivez votre réclamation…")
    shot(page, "9-gui-action")
    assert chat_page.errors == []

    # A URL redirection sends the host page there: the demo page of the Pro space.
    ask(page, "Je suis un professionnel")
    page.wait_for_url(re.compile(r"/demo/\?space=Pro$"))
    expect(page.locator(ANSWERS).first).to_be_visible()
    shot(page, "10-url-redirection")
    assert chat_page.errors == []
