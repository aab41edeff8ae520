"""A plain conversation through chat/talk, as the chatbox holds it."""

import pytest

pytestmark = pytest.mark.django_db


def test_welcome_opens_a_context_and_is_not_in_history(chatbox):
    values = chatbox.talk("#welcome#", hidden=True)
    assert "Clara" in values["text"]
    assert values["contextId"]
    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": chatbox.context_id}))
    assert history["interactions"] == []


def test_a_known_question_gets_its_answer(chatbox):
    values = chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert values["typeResponse"] == "DMUnderstoodQuestion"
    assert "mardi au samedi" in values["text"]
    assert values["language"] == "fr"
