"""Every value type through the talk endpoint (a bot with one item per type): the question is asked
after the item's introduction, each invalid example is asked again with the slot's own sentence, each
valid example ends the flow with the value stored in its canonical form and shown in the answer."""

from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dialogs.slots import values
from tests.speed.test_talk_queries import RUNNING

from .conftest import TYPES, in_flow, variables

pytestmark = pytest.mark.django_db


def _answer(template: str, variable: str, value: str) -> str:
    return template.replace("${capture." + variable + "}", value)


@pytest.mark.parametrize("spec", TYPES, ids=[spec[1] for spec in TYPES])
def test_each_type_asks_re_asks_and_captures(types_chatbox, spec):
    _, kind, variable, _, asked, answer, question, valid, invalid = spec
    for said, stored in valid:
        types_chatbox.context_id = ""
        assert types_chatbox.talk(asked)["text"] == f"D'accord.<hr/>{question}"
        for wrong in invalid:
            assert types_chatbox.talk(wrong)["text"] == f"Valeur refusée ({kind}). {question}", wrong
            assert in_flow(types_chatbox)
        assert types_chatbox.talk(said)["text"] == _answer(answer, variable, stored)
        assert variables(types_chatbox)[variable] == stored
        assert not in_flow(types_chatbox)


def test_a_value_in_the_first_sentence_answers_at_once(types_chatbox):
    assert types_chatbox.talk("Je veux commander une pizza reine")["text"] == "Une Reine, c'est noté."
    assert types_chatbox.talk("Je veux commander des parts : 3")["text"] == "Vous aurez 3 parts."


def test_free_text_is_never_taken_from_the_first_sentence(types_chatbox):
    # The sentence that starts the flow is no message: the message is asked for.
    assert types_chatbox.talk("Je veux laisser un message")["text"] == "D'accord.<hr/>Votre message ?"


def test_a_captured_value_is_escaped_in_the_answer(types_chatbox):
    types_chatbox.talk("Je veux laisser un message")
    shown = types_chatbox.talk("<b>urgent</b> & vite")["text"]
    assert shown == "Message reçu : « &lt;b&gt;urgent&lt;/b&gt; &amp; vite »."
    assert variables(types_chatbox)["message"] == "<b>urgent</b> & vite"


def test_a_flow_talk_reads_nothing_more_than_a_plain_talk(types_chatbox):
    types_chatbox.talk("Je veux commander une pizza")
    types_chatbox.talk("Reine")  # the item's answer is read once per knowledge version
    types_chatbox.context_id = ""  # a new dialog, where the pizza is not known yet
    types_chatbox.talk("Je veux commander une pizza")
    assert in_flow(types_chatbox)
    with CaptureQueriesContext(connection) as captured:
        assert types_chatbox.talk("Margherita")["text"] == "Une Margherita, c'est noté."
    ours = [q for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(ours) == len(RUNNING)


# The finders alone (no database): the forms a visitor writes and what is stored.
TODAY = date(2026, 11, 26)  # a Thursday


@pytest.mark.parametrize(
    ("kind", "text", "stored"),
    [
        ("date", "rendez-vous mardi au 06 12 34 56 78", "2026-12-01"),
        ("date", "jeudi", "2026-12-03"),  # said on a Thursday: next week's
        ("date", "demain", "2026-11-27"),
        ("date", "après-demain", "2026-11-28"),
        ("date", "le 12/03", "2027-03-12"),  # passed this year: next year's
        ("date", "le 1er décembre", "2026-12-01"),
        ("date", "March 3rd, 2027", "2027-03-03"),
        ("date", "2027-02-29", None),
        ("date", "06.12.34.56.78", None),
        ("phone", "rendez-vous mardi au 06 12 34 56 78", "0612345678"),
        ("phone", "0033 6 12 34 56 78", "+33612345678"),
        ("phone", "2027-03-12", None),
        ("phone", "1234567", None),
        ("email", "écrivez à Jean.Dupont+banque@mail.example.org.", "jean.dupont+banque@mail.example.org"),
        ("integer", "-3 degrés", "-3"),
        ("integer", "2,5", None),
        ("decimal", "2,50 €", "2.50"),
        ("list", "une quatre  fromages", "Quatre fromages"),
        ("list", "une fromagère", None),
    ],
)
def test_the_finders(kind, text, stored):
    found = values.find(kind, text, TODAY, ["Margherita", "Reine", "Quatre fromages"])
    assert (found[0] if found else None) == stored
