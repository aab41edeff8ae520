"""Context conditions in the back office, in a real browser (Debian's chromium) against the live server:
an editor adds an answer branch to the demo's loan item (a broken condition is refused with a message),
the chat answers with it at once for a visitor whose variables hold, and the dialog's page shows those
variables. Screenshots go to test-results/conditions/."""

import base64
import json
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from dialogs.models import Dialog
from knowledge.models import AnswerBranch, KnowledgeItem
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "conditions"
PASSWORD = "pw-for-tests-only"
SENIOR = "Prêt Sérénité pour les plus de 60 ans : 3 % sur 15 ans."
expect.set_options(timeout=10_000)


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def talk(server, bot_uuid, text: str, variables: dict) -> dict:
    fields = {"userInput": text, "language": "fr", "space": "Defaut", "variables": json.dumps(variables)}
    request = urllib.request.Request(
        f"{server.url}/servlet/api/chat/talk/{bot_uuid}", data=urllib.parse.urlencode(fields).encode()
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        values = json.loads(response.read())["values"]
    return {key: base64.b64decode(values[key]).decode() for key in ("text", "contextId")}


@pytest.mark.browser
def test_an_editor_adds_a_branch_and_the_chat_answers_with_it(browser, live_server, demo_bot_live):  # noqa: F811
    get_user_model().objects.create_superuser("condadmin", "conditions@example.org", PASSWORD)
    loan = KnowledgeItem.objects.get(bot=demo_bot_live, label="Loan")
    context = browser.new_context(viewport={"width": 1360, "height": 1000}, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/admin/login/")
        page.fill("#id_username", "condadmin")
        page.fill("#id_password", PASSWORD)
        page.click("[type=submit]")

        page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/{loan.pk}/change/")
        # The item's branches have a tab of their own (knowledge/admin.py), with the rule above them.
        page.locator("#tabs-items a[href='#branches']").click()
        group = page.locator("#branches-group")
        expect(group).to_contain_text("Context conditions: for a language and space, the first branch")
        expect(page.locator("#id_branches-0-conditions")).to_contain_text('"client_type"')
        shot(page, "01-loan-item")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#id_branches-0-conditions").screenshot(path=str(SHOTS / "01b-loan-item-first-branch.png"))

        # A new branch before the others; first with an operator that does not exist.
        group.get_by_text("Add another answer branch").click()
        page.select_option("#id_branches-4-language", "fr")
        page.select_option("#id_branches-4-space", label="Defaut")
        page.fill("#id_branches-4-position", "0")
        page.fill("#id_branches-4-conditions", '[{"variable": "age", "operator": "over", "value": "60"}]')
        text = page.locator("#id_branches-4-text")
        page.locator("[data-answer-editor]").filter(has=text).locator("[data-editor-mode=source]").click()  # as HTML
        text.fill(SENIOR)
        page.click("[name=_save]")
        expect(page.locator(".errorlist").first).to_contain_text("Operator must be one of: defined, is")
        shot(page, "02-unknown-operator-refused")
        page.locator("#id_branches-4-conditions").screenshot(
            path=str(SHOTS / "02b-unknown-operator-refused-branch.png")
        )
        assert not AnswerBranch.objects.filter(text=SENIOR).exists()

        page.fill("#id_branches-4-conditions", '[{"variable": "age", "operator": "greater", "value": "60"}]')
        page.click("[name=_save]")
        expect(page.locator("body")).to_contain_text("was changed successfully")

        answer = talk(live_server, demo_bot_live.uuid, "Je voudrais faire un prêt immobilier", {"age": "65"})
        assert answer["text"] == SENIOR
        dialog = Dialog.objects.get(uuid=answer["contextId"])
        page.goto(f"{live_server.url}/admin/dialogs/dialog/{dialog.pk}/change/")
        table = page.get_by_test_id("dialog-variables")
        expect(table).to_contain_text("age")
        expect(table).to_contain_text("65")
        table.scroll_into_view_if_needed()
        shot(page, "03-dialog-variables")
    finally:
        context.close()
