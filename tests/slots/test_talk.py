"""Slot filling through the talk endpoint on the demo bot: « Je voudrais un rendez-vous » asks the day
(a date) and the phone number, re-asks an invalid value, takes the values the first sentence holds,
asks before leaving on another question ("non" stays through bot.no.group.uuid, "oui" or another
question leaves) and answers with ${capture.jour} and ${capture.telephone} filled in."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dialogs.slots.flow import NO_GROUP_PREFERENCE
from preferences.models import BotPreference
from tests.speed.test_talk_queries import RUNNING

from .conftest import appointment_id, in_flow, next_weekday, variables

pytestmark = pytest.mark.django_db

INTRO = "Avec plaisir ! Il me faut deux informations."
DAY = "Quel jour vous conviendrait ? (par exemple « mardi » ou « 12/03 »)"
PHONE = "À quel numéro de téléphone pouvons-nous vous appeler ?"
LEAVE = "Voulez-vous arrêter de répondre à mes questions pour passer à autre chose ?"
HOURS = "Nos agences sont ouvertes du <b>mardi au samedi, de 9 h à 17 h 30</b>."


def booked(day, phone: str) -> str:
    return f"Rendez-vous noté le {day.isoformat()}, nous vous appellerons au {phone}."


def test_the_whole_flow_asks_the_day_then_the_phone_and_answers_with_both(chatbox, demo_bot):
    first = chatbox.talk("Je voudrais un rendez-vous")
    assert first["text"] == f"{INTRO}<hr/>{DAY}"
    assert first["typeResponse"] == "DMUnderstoodQuestion"
    assert first["knowledgeId"] == appointment_id(demo_bot)
    assert chatbox.talk("mardi")["text"] == PHONE
    assert variables(chatbox)["jour"] == next_weekday(1).isoformat()
    last = chatbox.talk("06 12 34 56 78")
    assert last["text"] == booked(next_weekday(1), "0612345678")
    assert last["knowledgeId"] == appointment_id(demo_bot)
    stored = variables(chatbox)
    assert stored["jour"] == next_weekday(1).isoformat() and stored["telephone"] == "0612345678"
    assert not in_flow(chatbox)
    # Out of the flow, the next question is answered as usual.
    assert chatbox.talk("Quels sont vos horaires d'ouverture ?")["text"].startswith(HOURS)


def test_values_in_the_first_sentence_fill_their_slots(chatbox):
    assert chatbox.talk("rendez-vous mardi au 06 12 34 56 78")["text"] == booked(next_weekday(1), "0612345678")
    assert not in_flow(chatbox)


def test_a_first_sentence_with_one_value_asks_only_the_other(chatbox):
    first = chatbox.talk("Je voudrais un rendez-vous, mon numéro est le 07 11 22 33 44")
    assert first["text"] == f"{INTRO}<hr/>{DAY}"
    assert chatbox.talk("le 12/03/2031")["text"] == booked(next_weekday(1).replace(2031, 3, 12), "0711223344")


def test_a_new_sentence_replaces_a_value_the_dialog_holds(chatbox):
    chatbox.talk("rendez-vous mardi au 06 12 34 56 78")
    # The phone number is known: only the day the sentence gives changes; nothing is asked again.
    assert chatbox.talk("Je voudrais un rendez-vous le 12/03/2031")["text"] == booked(
        next_weekday(1).replace(2031, 3, 12), "0612345678"
    )


def test_an_invalid_value_is_asked_again_with_the_slots_own_sentence(chatbox, demo_bot):
    chatbox.talk("Je voudrais un rendez-vous")
    again = chatbox.talk("le 45/13")
    assert again["text"] == f"Je n'ai pas reconnu de date. {DAY}"
    assert again["typeResponse"] == "DMUnderstoodQuestion"
    chatbox.talk("demain")
    invalid_phone = chatbox.talk("le 12")
    assert invalid_phone["text"].startswith("Ce numéro ne semble pas valide") and invalid_phone["text"].endswith(PHONE)
    assert in_flow(chatbox)
    tomorrow = timezone.localdate() + timedelta(days=1)
    assert chatbox.talk("+33 7 00 11 22 33")["text"] == booked(tomorrow, "+33700112233")


def test_another_question_asks_to_leave_and_no_keeps_the_flow(chatbox):
    chatbox.talk("Je voudrais un rendez-vous")
    assert chatbox.talk("Quels sont vos horaires d'ouverture ?")["text"] == LEAVE
    assert in_flow(chatbox)
    assert chatbox.talk("non")["text"] == DAY
    # The flow goes on where it was (interrupted and resumed).
    assert chatbox.talk("mardi")["text"] == PHONE
    assert chatbox.talk("Quels sont vos horaires d'ouverture ?")["text"] == LEAVE
    assert chatbox.talk("non merci")["text"] == PHONE
    assert chatbox.talk("0612345678")["text"] == booked(next_weekday(1), "0612345678")


def test_yes_leaves_the_flow_and_answers_the_question_that_interrupted_it(chatbox):
    chatbox.talk("Je voudrais un rendez-vous")
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert chatbox.talk("oui")["text"].startswith(HOURS)
    assert not in_flow(chatbox)
    assert "jour" not in variables(chatbox)


def test_another_question_at_the_leave_question_leaves_and_is_answered(chatbox):
    chatbox.talk("Je voudrais un rendez-vous")
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert "virement" in chatbox.talk("Comment faire un virement ?")["text"].lower()
    assert not in_flow(chatbox)


def test_a_value_at_the_leave_question_answers_the_question_still_asked(chatbox):
    chatbox.talk("Je voudrais un rendez-vous")
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert chatbox.talk("mardi")["text"] == PHONE
    assert in_flow(chatbox)


def test_without_the_no_group_preference_no_is_not_understood_and_leaves(chatbox, demo_bot):
    BotPreference.objects.filter(bot=demo_bot, name=NO_GROUP_PREFERENCE).delete()
    chatbox.talk("Je voudrais un rendez-vous")
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert chatbox.talk("non")["text"] != DAY
    assert not in_flow(chatbox)


def test_the_english_twin(chatbox):
    chatbox.language = "en"
    first = chatbox.talk("I would like an appointment")
    assert first["text"] == "Gladly! I need two details.<hr/>Which day suits you? (for example “Tuesday” or “12/03”)"
    assert chatbox.talk("Tuesday")["text"] == "Which phone number can we call you on?"
    assert chatbox.talk("+44 20 7946 0958")["text"] == (
        f"Appointment noted for {next_weekday(1).isoformat()}, we will call you on +442079460958."
    )


def test_a_plain_talk_keeps_its_statements_and_a_flow_talk_costs_the_same(chatbox):
    chatbox.talk("Bonjour")
    chatbox.talk("Comment faire un virement ?")  # its answer is read once per knowledge version
    with CaptureQueriesContext(connection) as plain:
        chatbox.talk("Comment faire un virement ?")
    chatbox.talk("Je voudrais un rendez-vous")
    with CaptureQueriesContext(connection) as flow:
        chatbox.talk("mardi")
    ours = [q["sql"] for q in plain.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(ours) == len(RUNNING), ours  # 3 on SQLite, 2 on PostgreSQL
    in_flow_talk = [q["sql"] for q in flow.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(in_flow_talk) == len(RUNNING), in_flow_talk
