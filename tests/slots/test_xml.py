"""Slot filling through the knowledge-base XML: the new fields are exported, imported and exported
again byte for byte (servlets), the imported flow works at once, and a file that misuses them is
refused with the line and nothing changes."""

import pytest
from lxml import etree

from knowledge.models import KnowledgeItem
from knowledge.xml import schema
from tests.accounts.personas import personas_for
from tests.conftest import Chatbox
from tests.knowledge.conftest import upload

from .conftest import TYPES, make_types_bot

pytestmark = pytest.mark.django_db


def export(client, bot, token) -> bytes:
    response = client.get(f"/servlet/api/bot/knowledgebase/export/{bot.uuid}/false", HTTP_AUTHORIZATION=token)
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def slot_fields(bot) -> list[tuple]:
    return sorted(
        KnowledgeItem.objects.filter(bot=bot).values_list(
            "label", "kind", "slot_variable", "slot_type", "slot_values", "slot_question", "slot_invalid", "slot_intro"
        )
    )


def needed_labels(bot) -> dict[str, list[str]]:
    labels = dict(KnowledgeItem.objects.filter(bot=bot).values_list("id", "label"))
    return {
        labels[pk]: [labels[n] for n in slots]
        for pk, slots in KnowledgeItem.objects.filter(bot=bot).values_list("id", "slots")
        if slots
    }


@pytest.fixture
def typed(db, settings):
    settings.MATCHING_EMBEDDINGS = False
    bot = make_types_bot()
    return bot, personas_for(bot).alice.token


def test_every_slot_field_round_trips_byte_for_byte(client, typed):
    bot, token = typed
    first = export(client, bot, token)
    assert schema().validate(etree.fromstring(first)), schema().error_log
    document = etree.fromstring(first)
    pizza = document.find(".//knowledgeItem[@slotVariable='pizza']")
    assert pizza.get("slotType") == "list"
    assert [v.text for v in pizza.findall("slotValue")] == ["Margherita", "Reine", "Quatre fromages"]
    assert pizza.find("slotQuestion").get("language") == "fr"
    assert pizza.find("slotInvalid").text == "Valeur refusée (list)."
    uses = document.find(".//knowledgeItem[@label='Pizza']")
    assert uses.find("slotIntroduction").text == "D'accord."
    assert uses.find("usesSlot").get("ref") == pizza.get("id")
    before, needs = slot_fields(bot), needed_labels(bot)

    client.delete(f"/servlet/api/bot/knowledgebase/delete/{bot.uuid}/false", HTTP_AUTHORIZATION=token)
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{bot.uuid}", first, token)
    assert response.status_code == 200, response.content
    assert response.json()["imported"]["knowledgeItems"]["slot"] == len(TYPES)
    assert export(client, bot, token) == first
    assert slot_fields(bot) == before and needed_labels(bot) == needs


def test_imported_slots_work_at_once_with_new_ids(client, typed):
    """Into another bot the items get new ids: usesSlot follows them."""
    bot, token = typed
    first = export(client, bot, token)
    other = make_types_bot(account=bot.account)
    KnowledgeItem.objects.filter(bot=other).delete()
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{other.uuid}", first, token)
    assert response.status_code == 200, response.content
    assert response.json()["idsKept"]["knowledgeItems"] is False
    assert needed_labels(other) == needed_labels(bot)
    chatbox = Chatbox(client, str(other.uuid))
    assert chatbox.talk("Je veux commander une pizza")["text"] == (
        "D'accord.<hr/>Quelle pizza : Margherita, Reine ou Quatre fromages ?"
    )
    assert chatbox.talk("Reine")["text"] == "Une Reine, c'est noté."


@pytest.mark.parametrize(
    ("change", "code", "reason"),
    [
        (('usesSlot ref="{slot}"', 'usesSlot ref="999999"'), "DANGLING_REFERENCE", "usesSlot"),
        (('usesSlot ref="{slot}"', 'usesSlot ref="{item}"'), "DANGLING_REFERENCE", "usesSlot"),
        (('kind="slot" status', 'kind="question" status'), "INVALID_VALUE", "only for kind 'slot'"),
        (("<slotIntroduction", "<slotValue>x</slotValue><slotIntroduction"), "INVALID_VALUE", "only for kind"),
        (('slotType="list"', 'slotType="colour"'), "SCHEMA_VIOLATION", "slotType"),
        (("</slotQuestion>", '</slotQuestion><slotQuestion language="fr">Encore ?</slotQuestion>'), "DUPLICATE", ""),
        (('<slotQuestion language="fr"', '<slotQuestion language="de"'), "DANGLING_REFERENCE", "de"),
    ],
)
def test_a_file_that_misuses_slot_filling_is_refused_and_changes_nothing(client, typed, change, code, reason):
    bot, token = typed
    first = export(client, bot, token).decode()
    pizza = KnowledgeItem.objects.get(bot=bot, slot_variable="pizza")
    item = KnowledgeItem.objects.get(bot=bot, label="Pizza")
    # The edit is made on the pizza items' part of the file only.
    start = first.index(f'<knowledgeItem id="{pizza.pk}"')
    end = first.index("</knowledgeItem>", first.index(f'<knowledgeItem id="{item.pk}"'))
    old, new = (part.format(slot=pizza.pk, item=item.pk) for part in change)
    assert old in first[start:end], old
    broken = first[:start] + first[start:end].replace(old, new, 1) + first[end:]
    before = slot_fields(bot)
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{bot.uuid}", broken.encode(), token)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == code and reason in body["error"], body
    assert body["line"] > 1
    assert slot_fields(bot) == before
