"""The back office's complementary answer in a real browser (Debian's chromium, the live server): an
administrator gives the demo's card reminder another activation, a target item and conditions; broken
conditions are refused on the page; the chat follows the saved rule at once. Screenshots go to
test-results/complements/."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import expect

from accounts.models import Membership, Role
from knowledge.models import KnowledgeItem
from tests.accounts.personas import PASSWORD
from tests.browser import back_office_context, screenshots
from tests.conftest import Chatbox
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)
from tests.e2e.test_livechat_backoffice import log_in

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
fieldset_shot = screenshots("complements")
REMINDER = "ne vous demandera jamais votre code"


def shot(page, name):
    """The page's complementary-answer fieldset (the page itself is long: formulations, answers…)."""
    fieldset_shot(page.locator("fieldset").filter(has=page.get_by_role("heading", name="Complementary answer")), name)


@pytest.fixture
def back_office(browser, live_server, demo_bot_live):  # noqa: F811
    # An English browser: the back office follows Accept-Language, and these checks read it in English.
    context = back_office_context(browser, width=1280, height=860, locale="en-US")
    yield context.new_page()
    context.close()


def test_an_administrator_sets_a_complements_activation_targets_and_conditions(
    back_office,
    live_server,
    demo_bot_live,  # noqa: F811
):
    # The demo's administrator, as `make run` makes it (a superuser of the demo account).
    boss = get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)
    Membership.objects.create(user=boss, account=demo_bot_live.account, role=Role.ADMINISTRATOR)
    reminder = KnowledgeItem.objects.get(bot=demo_bot_live, label="Card security reminder")
    page = back_office
    log_in(page, live_server, "boss")

    page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/{reminder.pk}/change/")
    page.get_by_role("heading", name="Complementary answer").click()
    activation = page.locator("#id_complement_frequency")
    expect(activation).to_have_value("once_per_dialog")
    activation.select_option(label="Once every N interactions")
    page.fill("#id_complement_n", "2")
    page.select_option("#id_complement_items", label="Account fees")
    page.fill("#id_complement_conditions", '[{"variable": "client_type", "operator": "between", "value": "pro"}]')
    page.click("[name=_save]")
    expect(page.locator(".errorlist")).to_contain_text("Operator must be one of")
    shot(page, "10-admin-conditions-refused")
    assert KnowledgeItem.objects.get(pk=reminder.pk).complement_frequency == "once_per_dialog"

    page.fill("#id_complement_conditions", '[{"variable": "client_type", "operator": "is", "value": "particulier"}]')
    shot(page, "11-admin-complement")
    page.click("[name=_save]")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    saved = KnowledgeItem.objects.get(pk=reminder.pk)
    assert (saved.complement_frequency, saved.complement_n) == ("every_n_interactions", 2)
    assert list(saved.complement_items.values_list("label", flat=True)) == ["Account fees"]

    # The chat follows the saved rule at once: only for a particulier, on the fees answer too, every 2nd time.
    visitor = Chatbox(Client(), str(demo_bot_live.uuid))
    assert REMINDER not in visitor.talk("Combien coûte le compte ?")["text"]
    shown = [
        REMINDER in visitor.talk("Combien coûte le compte ?", variables='{"client_type": "particulier"}')["text"]
        for _ in range(3)
    ]
    assert shown == [True, False, True]
