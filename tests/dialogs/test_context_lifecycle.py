"""The context lifecycle (servlet-api.md §3): idle, revoked, malformed and unknown context ids."""

from datetime import timedelta

import pytest
from django.utils import timezone

from dialogs.contexts import revoke_idle_dialogs
from dialogs.models import Dialog

pytestmark = pytest.mark.django_db


def idle(context_id: str, minutes: int):
    Dialog.objects.filter(uuid=context_id).update(last_activity=timezone.now() - timedelta(minutes=minutes))


def available(chatbox, context_id: str) -> bool:
    response = chatbox.client.post(chatbox.url(f"chat/availablecontext/{chatbox.bot}/{context_id}"))
    return chatbox.values(response)["isContextStillAvailable"]


def test_a_context_used_within_ten_minutes_stays_the_same(chatbox):
    chatbox.talk("Bonjour")
    first = chatbox.context_id
    idle(first, 9)
    chatbox.talk("Merci")
    assert chatbox.context_id == first
    assert Dialog.objects.get(uuid=first).interactions.count() == 2


def test_an_idle_context_is_revoked_and_the_next_talk_gets_a_new_one(chatbox):
    chatbox.talk("Bonjour")
    old = chatbox.context_id
    idle(old, 11)
    assert available(chatbox, old) is False
    values = chatbox.talk("Merci")
    assert values["contextId"] != old
    assert Dialog.objects.get(uuid=old).archived_at is not None
    assert Dialog.objects.get(uuid=values["contextId"]).interactions.count() == 1


def test_a_revoked_context_is_never_reused_even_after_activity(chatbox):
    chatbox.talk("Bonjour")
    old = chatbox.context_id
    Dialog.objects.filter(uuid=old).update(archived_at=timezone.now())
    values = chatbox.talk("Merci")
    assert values["contextId"] != old


@pytest.mark.parametrize("context_id", ["not-a-uuid", "123", "0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11", "%20"])
def test_unknown_or_malformed_ids_silently_get_a_new_valid_context(chatbox, context_id):
    response = chatbox.post(f"chat/talk/{chatbox.bot}/{context_id}", {"userInput": "Bonjour", "language": "fr"})
    values = chatbox.values(response)
    assert values["contextId"] != context_id
    assert Dialog.objects.filter(uuid=values["contextId"]).exists()
    assert available(chatbox, context_id) is False


def test_a_context_of_another_bot_is_unknown_here(chatbox, demo_bot):
    from bots.models import Bot, Space

    other = Bot.objects.create(name="Other")
    Space.objects.create(bot=other, name="Defaut", is_default=True)
    response = chatbox.client.post(f"/servlet/api/chat/talk/{other.uuid}", {"userInput": "Bonjour"})
    foreign = chatbox.values(response)["contextId"]
    values = chatbox.talk("Bonjour", contextId=foreign)  # form field alias, no path segment
    assert values["contextId"] != foreign


def test_revoke_idle_dialogs_archives_only_idle_ones(chatbox):
    chatbox.talk("Bonjour")
    active = chatbox.context_id
    chatbox.context_id = ""
    chatbox.talk("Merci")
    stale = chatbox.context_id
    idle(stale, 30)
    assert revoke_idle_dialogs() == 1
    assert Dialog.objects.get(uuid=stale).archived_at is not None
    assert Dialog.objects.get(uuid=active).archived_at is None
