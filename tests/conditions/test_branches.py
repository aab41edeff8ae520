"""Answer branches through the talk endpoint: the first priority group whose conditions all hold on the
dialog's variables answers, else the item's answer (the default); variables come from the talk's
`variables` field, chat/variable (set and delete) and the answers themselves; a plain talk still costs
its three statements and writes no variables."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dialogs.models import Dialog
from knowledge.models import Answer, AnswerBranch, Formulation, KnowledgeItem
from tests.speed.test_talk_queries import RUNNING, statements_of

pytestmark = pytest.mark.django_db

QUESTION = "Qui est mon conseiller attitré ?"
DEFAULT = "Votre agence vous donnera le nom de votre conseiller."
PRO_SENIOR = "Votre conseiller entreprises senior vous rappelle sous 24 h."
PRO = "Votre conseiller entreprises est joignable au 01 23 45 67 89."


def item_with_answer(bot, question: str, answer: str) -> KnowledgeItem:
    item = KnowledgeItem.objects.create(bot=bot, status="published", label=question)
    Formulation.objects.create(item=item, language="fr", text=question)
    Answer.objects.create(item=item, language="fr", space=bot.default_space(), text=answer)
    return item


def branch(item, position: int, text: str, *conditions, sets=None) -> AnswerBranch:
    return AnswerBranch.objects.create(
        item=item,
        language="fr",
        space=item.bot.default_space(),
        position=position,
        conditions=[{"variable": v, "operator": o, "value": x} for v, o, x in conditions],
        text=text,
        set_variables=sets or {},
    )


@pytest.fixture
def advisor(demo_bot):
    """Two priority groups: pro and over 25 first, then pro; else the default answer."""
    item = item_with_answer(demo_bot, QUESTION, DEFAULT)
    # Created out of order: the priority decides, not the creation order.
    branch(item, 2, PRO, ("client_type", "is", "pro"))
    branch(item, 1, PRO_SENIOR, ("client_type", "is", "pro"), ("age", "greater", "25"))
    return item


def stored(chatbox) -> dict:
    return Dialog.objects.get(uuid=chatbox.context_id).variables


def set_variable(chatbox, name: str, value: str, **fields) -> dict:
    data = {"contextId": chatbox.context_id, "name": name, "value": value, "solutionUsed": "ASSISTANT", **fields}
    return chatbox.values(chatbox.post(f"chat/variable/{chatbox.bot}", data))


def test_the_first_group_whose_conditions_all_hold_answers(chatbox, advisor):
    values = chatbox.talk(QUESTION, variables='{"client_type": "Pro", "age": "40"}')
    assert (values["knowledgeId"], values["text"]) == (advisor.pk, PRO_SENIOR)
    # The second group holds once the first does not (age 20 is not greater than 25).
    assert chatbox.talk(QUESTION, variables='{"age": "20"}')["text"] == PRO
    assert stored(chatbox) == {"client_type": "Pro", "age": "20"}


def test_without_a_holding_group_the_default_answer_is_given(chatbox, advisor):
    assert chatbox.talk(QUESTION)["text"] == DEFAULT
    assert chatbox.talk(QUESTION, variables='{"client_type": "particulier", "age": "60"}')["text"] == DEFAULT


def test_chat_variable_sets_and_deletes_what_the_conditions_read(chatbox, advisor):
    chatbox.talk("Bonjour")
    assert set_variable(chatbox, "client_type", "pro") == {"name": "client_type", "value": "pro"}
    assert chatbox.talk(QUESTION)["text"] == PRO
    set_variable(chatbox, "age", "31")
    assert chatbox.talk(QUESTION)["text"] == PRO_SENIOR
    # The delete form: an empty value, or delete=true whatever the value.
    assert set_variable(chatbox, "age", "") == {"name": "age", "value": ""}
    assert chatbox.talk(QUESTION)["text"] == PRO
    assert set_variable(chatbox, "client_type", "pro", delete="true") == {"name": "client_type", "value": ""}
    assert chatbox.talk(QUESTION)["text"] == DEFAULT
    assert stored(chatbox) == {}


def test_an_answer_sets_variables_that_later_answers_read(chatbox, demo_bot, advisor):
    # Words of its own: the demo bot's « Je suis chef d'entreprise » sets client_type already (test_demo.py), and
    # two items written alike are offered as a reword, not answered.
    statement = item_with_answer(demo_bot, "Activez mon profil ZX81", "Bien noté.")
    branch(statement, 0, "C'est noté, vous êtes un client ${client_type}.", sets={"client_type": "pro"})
    values = chatbox.talk("Activez mon profil ZX81")
    # The branch without condition always holds; its variables are set before its text is rendered.
    assert values["text"] == "C'est noté, vous êtes un client pro."
    assert stored(chatbox) == {"client_type": "pro"}
    assert chatbox.talk(QUESTION)["text"] == PRO


def test_a_chat_variable_on_an_unknown_dialog_or_without_a_name_changes_nothing(chatbox, advisor):
    chatbox.talk("Bonjour")
    response = chatbox.post(f"chat/variable/{chatbox.bot}", {"contextId": chatbox.context_id, "name": "  "})
    assert (response.status_code, response.json()["field"]) == (400, "name")
    unknown = "00000000-0000-4000-8000-00000000beef"
    response = chatbox.post(f"chat/variable/{chatbox.bot}", {"contextId": unknown, "name": "a", "value": "b"})
    assert (response.status_code, response.json()["code"]) == (404, "UNKNOWN_CONTEXT")
    assert stored(chatbox) == {}


def dialog_updates(captured) -> list[str]:
    """The statements that update a dialog (on PostgreSQL a plain talk's is inside its one WITH statement)."""
    return [q["sql"] for q in captured.captured_queries if 'UPDATE "dialogs_dialog"' in q["sql"]]


def test_a_plain_talk_costs_its_usual_statements_and_writes_no_variables(chatbox, advisor):
    chatbox.talk("Bonjour", variables='{"client_type": "pro"}')
    chatbox.talk(QUESTION)  # the answers and branches of this knowledge version are read once
    with CaptureQueriesContext(connection) as captured:
        assert statements_of(chatbox, QUESTION) == RUNNING
    (update,) = dialog_updates(captured)
    assert '"variables" =' not in update
    # The same variables sent again change nothing: still no variables written.
    with CaptureQueriesContext(connection) as captured:
        assert statements_of(chatbox, QUESTION, variables='{"client_type": "pro"}') == RUNNING
    assert not [update for update in dialog_updates(captured) if '"variables" =' in update]


def test_a_talk_that_changes_variables_merges_them_in_its_one_update(chatbox, advisor):
    chatbox.talk("Bonjour", variables='{"client_type": "pro", "age": "20"}')
    chatbox.talk(QUESTION)
    with CaptureQueriesContext(connection) as captured:
        assert statements_of(chatbox, QUESTION, variables='{"age": "26"}') == RUNNING
    (update,) = dialog_updates(captured)
    assert '"variables" =' in update
    assert stored(chatbox) == {"client_type": "pro", "age": "26"}
    assert chatbox.talk(QUESTION)["text"] == PRO_SENIOR


def test_a_chat_variable_write_is_one_merging_update_after_two_reads(chatbox, advisor):
    chatbox.talk("Bonjour", variables='{"age": "40"}')
    with CaptureQueriesContext(connection) as captured:
        set_variable(chatbox, "client_type", "pro")
    verbs = [
        q["sql"].split(None, 1)[0]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
    ]
    # The bot, the dialog, then the change merged into the stored variables (no read-merge-write).
    assert verbs == ["SELECT", "SELECT", "UPDATE"], [q["sql"][:150] for q in captured.captured_queries]
    assert stored(chatbox) == {"age": "40", "client_type": "pro"}
