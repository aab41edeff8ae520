"""The learning page shows the questions operators answered in live chat without a suggested answer (what the
bot's knowledge lacks), beside its misunderstood inputs or alone; a question answered with a suggestion, a
second reply, and qualification-mode dialogs are not there. Through Django's test client."""

import pytest
from django.test import Client
from django.urls import reverse

from dialogs.learning import page
from dialogs.models import Interaction
from knowledge.models import KnowledgeItem
from livechat import operating
from tests.livechat.conftest import Visitor, make_operator

from .conftest import EDITOR, seed_inputs, staff

pytestmark = pytest.mark.django_db
PAGE = reverse("admin:knowledge_misunderstoodinput_changelist")
DOG = "Avez-vous une assurance pour mon chien ?"
CARD = "Je n'ai toujours pas reçu ma nouvelle carte"


def operator_answers(bot, question: str, reply: str, *, suggestion=None, **talk):
    """A visitor asks for a human, writes `question`; the operator replies (from a suggestion or not). The
    dialog stays live (Léa holds up to 10)."""
    visitor = Visitor(Client(), str(bot.uuid))
    visitor.ask_for_human(**talk)
    visitor.write(question)
    request = visitor.live_request()
    operating.send_message(request.operator, request.pk, reply, suggestion=suggestion)
    return request


@pytest.fixture
def answered(demo_bot, lexical):
    seed_inputs()
    make_operator(demo_bot.account, "lea", "Léa", max_dialogs=10)
    card = KnowledgeItem.objects.get(bot=demo_bot, label="Card not arrived")
    operator_answers(demo_bot, DOG, "Pas encore, hélas.")
    operator_answers(demo_bot, DOG.lower(), "Non, désolée.")
    operator_answers(demo_bot, CARD, "Une carte arrive sous 7 jours ouvrés.", suggestion=card.pk)
    # An editor's test in qualification mode never counts.
    operator_answers(demo_bot, "assurance chien chat", "Non.", qualificationMode="true")
    return demo_bot


def texts(learning) -> set[str]:
    return {m.text for g in learning.groups for m in g.members}


def test_questions_answered_without_a_suggestion_join_the_page(answered):
    learning = page.build(answered)
    dog = next(g for g in learning.groups if g.leader.key.startswith("avez-vous une assurance"))
    assert (dog.by_operator, dog.misunderstood, dog.reworded, dog.count) == (2, 0, 0, 2)
    assert CARD not in texts(learning)  # answered with the bot's suggestion: the knowledge has it
    assert "assurance chien chat" not in texts(learning)
    assert "assurance vie" in {g.leader.key for g in learning.groups}  # the misunderstood inputs stay

    alone = page.build(answered, source="operators")
    assert [(g.leader.text, g.count) for g in alone.groups] == [(dog.leader.text, 2)]


def test_the_page_filters_and_labels_them(answered, client):
    client.force_login(staff(answered, "editor", EDITOR))
    response = client.get(PAGE, {"bot": answered.pk, "source": "operators"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "2 answered by an operator" in body and "avez-vous une assurance pour mon chien" in body.lower()
    assert "assurance vie" not in body
    assert '<option value="operators" selected>' in body
    # An unknown source is all of them, not an error.
    assert "assurance vie" in client.get(PAGE, {"bot": answered.pk, "source": "nonsense"}).content.decode()


def test_an_action_brings_the_editor_back_to_the_same_filter(answered, client):
    client.force_login(staff(answered, "editor", EDITOR))
    url = reverse("admin:knowledge_misunderstoodinput_act", args=[answered.pk])
    fields = {"action": "ignore", "label": DOG, "texts": [DOG.lower()], "count": "2", "reason": "pas notre métier"}
    response = client.post(url, {**fields, "language": "fr", "filter_source": "operators"})
    assert response.status_code == 302 and "source=operators" in response["Location"]
    assert not page.build(answered, source="operators").groups


def test_only_the_first_reply_to_a_question_counts(demo_bot, lexical):
    make_operator(demo_bot.account, "lea", "Léa")
    request = operator_answers(demo_bot, DOG, "Je regarde.")
    operating.send_message(request.operator, request.pk, "Non, pas pour les chiens.")
    assert Interaction.objects.filter(dialog=request.dialog, human=True).count() == 2
    (group,) = page.build(demo_bot, source="operators").groups
    assert group.by_operator == 1
