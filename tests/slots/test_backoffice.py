"""The slot-filling fields in the back office: a slot item's question edited in a real browser
(Debian's chromium) is what the chat asks next; bad values are refused with a message and nothing
changes (also through Django's test client). Screenshots go to test-results/slots/."""

import base64
import json
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.forms.models import model_to_dict
from playwright.sync_api import expect

from knowledge.models import KnowledgeItem
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "slots"
PASSWORD = "pw-for-tests-only"
expect.set_options(timeout=10_000)


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def talk(server, bot_uuid, text: str, context_id: str = "") -> dict:
    body = urllib.parse.urlencode({"userInput": text, "language": "fr", "space": "Defaut"}).encode()
    path = f"/servlet/api/chat/talk/{bot_uuid}" + (f"/{context_id}" if context_id else "")
    with urllib.request.urlopen(urllib.request.Request(server.url + path, data=body), timeout=30) as response:
        values = json.loads(response.read())["values"]
    return {key: base64.b64decode(values[key]).decode() for key in ("text", "contextId")}


@pytest.mark.browser
def test_an_editor_changes_a_slot_question_and_the_chat_asks_it(browser, live_server, demo_bot_live):  # noqa: F811
    get_user_model().objects.create_superuser("slotadmin", "slots@example.org", PASSWORD)
    day = KnowledgeItem.objects.get(bot=demo_bot_live, slot_variable="jour")
    appointment = KnowledgeItem.objects.get(bot=demo_bot_live, label="Appointment")
    context = browser.new_context(viewport={"width": 1360, "height": 1000}, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/admin/login/")
        page.fill("#id_username", "slotadmin")
        page.fill("#id_password", PASSWORD)
        page.click("[type=submit]")

        page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/{day.pk}/change/")
        page.get_by_text("Slot filling", exact=True).click()
        expect(page.locator("#id_slot_type")).to_have_value("date")
        expect(page.locator("#id_slot_variable")).to_have_value("jour")
        page.fill("#id_slot_question", json.dumps({"fr": "Quelle date, ${capture.nom} ?", "en": "Which date?"}))
        shot(page, "01-slot-item")
        page.click("[name=_save]")
        expect(page.locator("body")).to_contain_text("was changed successfully")

        # The item that needs slots: the help lists this bot's slot items; an unknown id is refused.
        page.goto(f"{live_server.url}/admin/knowledge/knowledgeitem/{appointment.pk}/change/")
        page.get_by_text("Slot filling", exact=True).click()
        expect(page.locator("body")).to_contain_text("Appointment day (${capture.jour}, date)")
        page.fill("#id_slots", "[999999]")
        page.click("[name=_save]")
        expect(page.locator(".errorlist")).to_contain_text("Not slot items of this bot: 999999")
        shot(page, "02-unknown-slot-refused")
    finally:
        context.close()

    appointment.refresh_from_db()
    assert len(appointment.slots) == 2
    first = talk(live_server, demo_bot_live.uuid, "Je voudrais un rendez-vous")
    assert first["text"] == "Avec plaisir ! Il me faut deux informations.<hr/>Quelle date,  ?"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("slot_question", '["Quel jour ?"]', "sentences by language code"),
        ("slot_intro", '{"fr": 3}', "sentences by language code"),
        ("slot_values", '["Reine", ""]', "non-empty texts"),
        ("slots", '["12"]', "slot item ids"),
        ("slots", "[{slot}, {slot}]", "needed once"),
    ],
)
def test_bad_slot_fields_are_refused_by_the_back_office(client, demo_bot, field, value, message):
    admin = get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)
    client.force_login(admin)
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Appointment")
    slot = item.slots[0]
    page = client.get(f"/admin/knowledge/knowledgeitem/{item.pk}/change/")
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data = {k: ("" if v is None else v) for k, v in data.items() if not isinstance(v, list)}
    for name in ("slot_values", "slot_question", "slot_invalid", "slots", "slot_intro", "event_rules"):
        data[name] = json.dumps(model_to_dict(item)[name])
    data[field] = value.replace("{slot}", str(slot))
    for prefix in ("formulations", "answers"):
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    response = client.post(f"/admin/knowledge/knowledgeitem/{item.pk}/change/", data)
    assert response.status_code == 200  # the form again, with the error
    assert message in response.content.decode()
    before = (item.slots, item.slot_intro)
    item.refresh_from_db()
    assert (item.slots, item.slot_intro) == before
