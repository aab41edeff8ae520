"""Supervision in real browsers against a real server process (daphne, as `make run` serves it): a visitor on
the demo chat page, an operator and a supervisor (an operator given the right by an administrator) each in
their own browser context, on a bot whose preference livechat.createmonitoreddialogs is on. The supervisor
finds the dialog in the All view, reads it along as the visitor and the operator write, whispers to the
operator, joins and writes to the visitor, then takes it over; the operator writes a private note. The
visitor's chatbox never shows a note. In English and in French (the back office's language cookie).
Screenshots: test-results/supervision/."""

import re

import pytest
from playwright.sync_api import expect

from bots.models import DEMO_BOT_UUID
from tests.browser import new_pages, screenshots
from tests.servers import Browser, Platform

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)

shot = screenshots("supervision")
OPERATOR, SUPERVISOR, PASSWORD = "lea", "sam", "supervision-pass-2026-e2e"
WHISPER = "Propose-lui la carte Or"
NOTE = "Client fidèle depuis 2012"
WORDS = {
    "en": {"all": "All", "along": "Reading along", "whisper": "whispers to you"},
    "fr": {"all": "Toutes", "along": "En direct", "whisper": "vous glisse une note"},
}


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("livechat-supervision")) as running:
        running.add_operator(OPERATOR, PASSWORD)
        running.add_operator(SUPERVISOR, PASSWORD)
        server = Browser(running.servers[0])
        token = running.admin_token()
        # An administrator gives Sam the supervisor right and turns monitoring on for the demo bot.
        given = server.put_form(
            f"/servlet/api/operators/availability/{SUPERVISOR}", {"supervisor": "true"}, token=token
        )
        assert given["supervisor"] is True
        server.put_form(
            f"/servlet/api/preferences/bot/{DEMO_BOT_UUID}/livechat.createmonitoreddialogs/true", {}, token=token
        )
        yield running


def open_console(page, server, login: str, language: str, status: str):
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server.base}])
    page.goto(server.url("/livechat/"))
    expect(page).to_have_url(re.compile(r"/admin/login/"))
    page.fill("#id_username", login)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    expect(page).to_have_url(server.url("/livechat/"))
    select = page.get_by_test_id("status-select")
    expect(select).to_be_enabled()
    select.select_option(status)
    expect(page.locator("#status-dot")).to_have_attribute("data-status", status)
    return page


def say(visitor, text: str):
    visitor.locator("#dcb-input").fill(text)
    visitor.locator("#dcb-input").press("Enter")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_supervisor_reads_along_whispers_joins_and_takes_over(platform, browser, language):
    server = platform.servers[0]
    words = WORDS[language]
    with new_pages(browser, width=1366, height=860, locale="fr-FR", timeout=15_000) as new:
        lea = open_console(new(), server, OPERATOR, language, "available")
        sam = open_console(new(), server, SUPERVISOR, language, "busy")
        visitor = new()
        visitor.goto(server.url("/demo/"))
        expect(visitor.locator(".dcb-row-bot").first).to_contain_text("je suis Clara")
        say(visitor, "Je veux parler à un conseiller")
        expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
        expect(lea.get_by_test_id("dialog-item")).to_have_count(1)
        lea.get_by_test_id("dialog-item").first.click()

        # The supervisor finds the dialog in the All view, with its operator, and reads it along.
        sam.get_by_test_id("view-all").click()
        expect(sam.get_by_test_id("view-all")).to_contain_text(words["all"])
        item = sam.locator('[data-testid="all-item"][data-state="operator"]').first
        expect(item).to_contain_text(OPERATOR)
        shot(sam, f"{language}-01-supervisor-all-view")
        item.locator(".item-main").click()
        watch = sam.get_by_test_id("watch")
        expect(watch).to_be_visible()
        expect(sam.get_by_test_id("watch-mode")).to_contain_text(words["along"])
        lines = sam.get_by_test_id("watch-transcript")
        expect(lines).to_contain_text("Je veux parler à un conseiller")

        say(visitor, "Ma carte est bloquée depuis ce matin")
        expect(lines).to_contain_text("Ma carte est bloquée depuis ce matin")  # as the visitor writes it
        lea.get_by_test_id("composer-input").fill("Je regarde votre dossier.")
        lea.get_by_test_id("composer-send").click()
        expect(lines).to_contain_text("Je regarde votre dossier.")
        shot(sam, f"{language}-02-supervisor-reading-along")

        # A whisper: the operator sees it at once, the visitor never.
        sam.get_by_test_id("watch-input").fill(WHISPER)
        sam.get_by_test_id("watch-send").click()
        expect(lines.locator('[data-from="note"][data-kind="whisper"]')).to_contain_text(WHISPER)
        whispered = lea.get_by_test_id("transcript").locator('[data-from="note"][data-kind="whisper"]')
        expect(whispered).to_contain_text(WHISPER)
        expect(lea.get_by_test_id("whisper-toast")).to_contain_text(words["whisper"])
        shot(lea, f"{language}-03-operator-whispered")

        # The operator's private note: the composer in note mode tells the visitor nothing.
        lea.get_by_test_id("mode-note").click()
        lea.get_by_test_id("composer-input").fill(NOTE)
        lea.get_by_test_id("composer-send").click()
        expect(lea.get_by_test_id("transcript").locator('[data-from="note"][data-kind="note"]')).to_contain_text(NOTE)
        expect(lines.locator('[data-from="note"][data-kind="note"]')).to_contain_text(NOTE)
        shot(lea, f"{language}-04-operator-private-note")
        lea.get_by_test_id("mode-reply").click()

        # The supervisor joins: the visitor is told (in the bot's language), then reads the supervisor beside
        # the operator.
        chat = visitor.locator("#dydu-chatbox")
        told = chat.get_by_text(re.compile("a rejoint la conversation"))
        before = told.count()
        sam.get_by_test_id("watch-join").click()
        expect(sam.get_by_test_id("watch-joined")).to_be_visible()
        expect(told).to_have_count(before + 1)
        sam.get_by_test_id("watch-mode-reply").click()
        sam.get_by_test_id("watch-input").fill("Bonjour, je suis responsable de l'équipe.")
        sam.get_by_test_id("watch-send").click()
        expect(chat).to_contain_text("Bonjour, je suis responsable de l'équipe.")
        expect(lea.get_by_test_id("transcript")).to_contain_text("Bonjour, je suis responsable de l'équipe.")
        shot(sam, f"{language}-05-supervisor-joined")
        shot(visitor, f"{language}-06-visitor-with-both")

        # The supervisor takes over: the dialog is theirs, the operator's console lets it go.
        sam.get_by_test_id("watch-takeover").click()
        expect(sam.locator("#conversation")).to_be_visible()
        expect(sam.get_by_test_id("composer-input")).to_be_visible()
        expect(lea.get_by_test_id("dialog-item")).to_have_count(0)
        sam.get_by_test_id("composer-input").fill("Je prends la suite, votre carte est débloquée.")
        sam.get_by_test_id("composer-send").click()
        expect(chat).to_contain_text("Je prends la suite, votre carte est débloquée.")
        shot(sam, f"{language}-07-supervisor-took-over")
        shot(lea, f"{language}-08-operator-after-take-over")
        shot(visitor, f"{language}-09-visitor-after-take-over")

        # Nothing staff-only ever reached the visitor's chatbox.
        shown = chat.inner_text()
        assert WHISPER not in shown and NOTE not in shown
        sam.get_by_test_id("end-button").click()
        sam.get_by_test_id("end-confirm").click()
        expect(chat).to_have_attribute("data-livechat", "off")


def test_a_supervisor_reads_along_on_a_phone(platform, browser):
    server = platform.servers[0]
    with (
        new_pages(browser, width=390, height=844, locale="fr-FR", timeout=15_000) as phone,
        new_pages(browser, width=1280, height=860, locale="fr-FR", timeout=15_000) as new,
    ):
        sam = open_console(phone(has_touch=True), server, SUPERVISOR, "en", "busy")
        lea = open_console(new(), server, OPERATOR, "en", "available")
        visitor = new()
        visitor.goto(server.url("/demo/"))
        expect(visitor.locator(".dcb-row-bot").first).to_contain_text("je suis Clara")
        say(visitor, "Je veux parler à un conseiller")
        expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
        expect(lea.get_by_test_id("dialog-item")).to_have_count(1)

        sam.get_by_test_id("view-all").click()
        item = sam.locator('[data-testid="all-item"][data-state="operator"]').first
        expect(item).to_be_visible()
        assert sam.evaluate("document.documentElement.scrollWidth") <= 390
        shot(sam, "phone-01-all-view")
        item.locator(".item-main").click()
        expect(sam.get_by_test_id("watch")).to_be_visible()
        expect(sam.locator(".sidebar")).to_be_hidden()  # one pane at a time
        say(visitor, "Ma carte est bloquée")
        expect(sam.get_by_test_id("watch-transcript")).to_contain_text("Ma carte est bloquée")
        sam.get_by_test_id("watch-input").fill(WHISPER)
        sam.get_by_test_id("watch-send").click()
        expect(lea.get_by_test_id("whisper-toast")).to_contain_text(WHISPER)
        assert sam.evaluate("document.documentElement.scrollWidth") <= 390
        shot(sam, "phone-02-reading-along")
        sam.locator("#watch-back").click()
        expect(sam.locator(".sidebar")).to_be_visible()
        expect(sam.get_by_test_id("watch")).to_be_hidden()
        assert WHISPER not in visitor.locator("#dydu-chatbox").inner_text()
