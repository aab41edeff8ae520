"""Live chat's back-office pages in a real browser: an administrator sets an operator's dialog limit and
competencies and a bot's live-chat settings, reads the handovers and the callbacks; an operator sees
the console link and the callbacks but cannot change the team. Screenshots go to test-results/livechat/."""

import threading
from pathlib import Path

import pytest
from django.db import connections
from playwright.sync_api import expect

from accounts.models import Competency
from livechat import operating
from livechat.models import Callback, LivechatSettings, Operator
from tests.accounts.personas import PASSWORD, make_persona
from tests.conftest import Chatbox
from tests.livechat.conftest import make_operator

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "livechat"


@pytest.fixture
def back_office(browser, live_server, demo_bot_live):
    # An English browser: the back office follows Accept-Language, and these checks read it in English.
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def log_in(page, server, login):
    page.goto(server.url + "/admin/login/")
    page.fill("#id_username", login)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    if Operator.objects.filter(user__username=login, user__membership__role="operator").exists():
        # An operator lands in the console (accounts/landing.py); the back office is a click away.
        expect(page).to_have_url(server.url + "/livechat/")
        page.goto(server.url + "/admin/")
    expect(page.locator("#nav-sidebar-apps, nav").filter(has_text="Live chat console").first).to_be_visible()


def in_thread(work):
    """Live-chat work pushes through the channel layer, which cannot run on Playwright's event-loop
    thread; the test does it from a thread of its own, as a server's worker thread would."""
    outcome = {}

    def run():
        try:
            outcome["value"] = work()
        finally:
            connections.close_all()  # a thread's connection goes back (pooled on PostgreSQL) with it

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    return outcome.get("value")


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_an_administrator_runs_the_team_from_the_back_office(back_office, live_server, demo_bot_live):
    from django.test import Client

    account = demo_bot_live.account
    cards = Competency.objects.create(account=account, name="Cartes")
    ada, _ = make_persona(account, "administrator", login="ada")
    ada.is_staff = True
    ada.save(update_fields=["is_staff"])
    lea = make_operator(account, "lea", "Léa")
    visitor = Chatbox(Client(), str(demo_bot_live.uuid))
    in_thread(lambda: visitor.talk("Je veux parler à un conseiller"))
    in_thread(lambda: operating.end(lea, lea.requests.get().pk))
    Callback.objects.create(bot=demo_bot_live, phone="+33 6 12 34 56 78", name="Jeanne", reason="Prêt immobilier")
    page = back_office
    log_in(page, live_server, "ada")

    page.goto(live_server.url + "/admin/livechat/operator/")
    row = page.locator("#result_list tbody tr").filter(has_text="Léa")
    expect(row).to_contain_text("Available")
    shot(page, "20-admin-operators")
    row.locator("a").first.click()
    page.fill("#id_max_dialogs", "5")
    page.select_option("#id_competencies_from", label="Cartes")
    page.click("#id_competencies_add")
    shot(page, "21-admin-operator")
    page.click("[name=_save]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    lea.refresh_from_db()
    assert lea.max_dialogs == 5
    assert list(lea.competencies.all()) == [cards]

    page.goto(live_server.url + "/admin/livechat/operator/")
    page.locator("#result_list tbody tr").filter(has_text="Léa").locator("a").first.click()
    page.fill("#id_max_dialogs", "11")
    page.click("[name=_save]")
    expect(page.locator(".errorlist")).to_contain_text("10")
    assert Operator.objects.get(pk=lea.pk).max_dialogs == 5

    # The bot's row was made with it: the list shows the defaults in force, the administrator edits them.
    page.goto(live_server.url + "/admin/livechat/livechatsettings/")
    page.locator("#result_list tbody tr").filter(has_text=demo_bot_live.name).locator("a").first.click()
    page.check("#id_handover_on_too_many_misunderstood")
    page.fill("#id_visitor_timeout_seconds", "600")
    shot(page, "22-admin-settings")
    page.click("[name=_save]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    saved = LivechatSettings.objects.get(bot=demo_bot_live)
    assert (saved.handover_on_too_many_misunderstood, saved.visitor_timeout_seconds) == (True, 600)

    page.goto(live_server.url + "/admin/livechat/livechatrequest/")
    handover = page.locator("#result_list tbody tr").first
    expect(handover).to_contain_text("Ended by the operator")
    expect(handover).to_contain_text("Léa")
    shot(page, "23-admin-handovers")

    page.goto(live_server.url + "/admin/livechat/callback/")
    expect(page.locator("#result_list")).to_contain_text("+33 6 12 34 56 78")
    shot(page, "24-admin-callbacks")


def test_an_operator_sees_the_console_link_and_callbacks_but_not_the_team_settings(
    back_office, live_server, demo_bot_live
):
    account = demo_bot_live.account
    make_operator(account, "lea", "Léa")
    marc = make_operator(account, "marc", "Marc")
    Callback.objects.create(bot=demo_bot_live, phone="0612345678", name="Paul")
    page = back_office
    log_in(page, live_server, "lea")

    page.goto(live_server.url + "/admin/livechat/callback/")
    expect(page.locator("#result_list")).to_contain_text("0612345678")
    page.goto(live_server.url + f"/admin/livechat/operator/{marc.pk}/change/")
    expect(page.locator("#id_max_dialogs")).to_have_count(0)  # read only for an operator
    shot(page, "25-operator-reads-team")
    page.locator("nav a", has_text="Live chat console").first.click()
    expect(page).to_have_url(live_server.url + "/livechat/")
