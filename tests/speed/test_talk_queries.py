"""The talk hot path: the database statements one talk costs, pinned statement by statement, on the
database of the run (SQLite with the embedded defaults, PostgreSQL with DATABASE_URL: CI runs both).

A talk in a running dialog is one read (the dialog joined to its bot) and the interaction insert with
the dialog update; a talk that opens a dialog reads the bot, then inserts the dialog and its
interaction. On SQLite the two writes are two statements in one transaction; on PostgreSQL they are one
statement (a data-modifying WITH, dialogs/statements.store_talk): no BEGIN and COMMIT round trips.
Answers, like the rest of the knowledge, are read once per knowledge version (knowledge/snapshot.py),
so a question answered before costs no answer query."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

TABLE = re.compile(r'(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', re.IGNORECASE)
WRITE = re.compile(r'(INSERT|UPDATE)\s+(?:INTO\s+)?"?(\w+)"?', re.IGNORECASE)


def described_with(sql: str) -> str:
    """A data-modifying WITH as 'WITH' and each of its writes in order ('WITH UPDATE t1 INSERT t2')."""
    return " ".join(["WITH", *(" ".join(pair) for pair in WRITE.findall(sql))])


def statements_of(chatbox, text: str, **fields) -> list[str]:
    """Each statement of one talk as 'VERB table' (a SELECT with its joined tables); the test's own
    SAVEPOINTs (pytest-django wraps each test in a transaction) are left out."""
    with CaptureQueriesContext(connection) as captured:
        chatbox.talk(text, **fields)
    found = []
    for query in captured.captured_queries:
        sql = query["sql"].strip()
        verb = sql.split(None, 1)[0].upper()
        if verb in ("SAVEPOINT", "RELEASE"):
            continue
        if verb == "WITH":
            found.append(described_with(sql))
            continue
        tables = TABLE.findall(sql)[:1]
        if verb == "SELECT":
            tables += sorted(set(re.findall(r'JOIN\s+"?(\w+)"?', sql, re.IGNORECASE)))
        found.append(" ".join([verb, *tables]))
    return found


# The question a rewording link sends back when clicked (client-contract.md §3).
REWORD_CLICK = re.compile(r"reword\('((?:[^'\\]|\\.)*)',\{'type':'reword_auto'\}\)")
if connection.vendor == "postgresql":
    WRITES = ["WITH UPDATE dialogs_dialog INSERT dialogs_interaction"]
    OPENING = ["WITH INSERT dialogs_dialog INSERT dialogs_interaction"]
else:
    WRITES = ["INSERT dialogs_interaction", "UPDATE dialogs_dialog"]
    OPENING = ["INSERT dialogs_dialog", "INSERT dialogs_interaction"]
RUNNING = ["SELECT dialogs_dialog bots_bot", *WRITES]
# A talk that writes more than its interaction and its dialog (a limited complement shown, live chat)
# keeps its transaction on both databases.
TRANSACTION_WRITES = ["INSERT dialogs_interaction", "UPDATE dialogs_dialog"]


def test_a_talk_in_a_running_dialog_reads_once_and_writes_twice(chatbox):
    chatbox.talk("Bonjour")  # opens the dialog and builds the matching snapshot
    # The first time an answer is given in this knowledge version, it is read…
    assert statements_of(chatbox, "Comment faire un virement ?") == [
        "SELECT dialogs_dialog bots_bot",
        "SELECT knowledge_answer",
        *WRITES,
    ]
    # … and never again.
    assert statements_of(chatbox, "Comment faire un virement ?") == RUNNING


def test_a_talk_that_opens_a_dialog_reads_the_bot_and_inserts_twice(chatbox):
    chatbox.talk("Comment faire un virement ?")
    chatbox.context_id = ""
    assert statements_of(chatbox, "Comment faire un virement ?") == ["SELECT bots_bot", *OPENING]


def test_a_reword_click_costs_what_a_talk_costs(chatbox):
    values = chatbox.talk("carte")
    questions = [question.replace("\\'", "'") for question in REWORD_CLICK.findall(values["text"])]
    assert questions, values
    clicked = chatbox.talk(questions[0], extra='{"type":"reword_auto"}')  # its answer is read once
    assert clicked["typeResponse"] == "DMRewordClickedAuto"
    statements = statements_of(chatbox, questions[0], extraParameters='{"type":"reword_auto"}')
    # A card answer: the demo's card reminder (once per dialog) reads what the dialog remembers of it
    # (statement 2), as the same question typed does (tests/complements/test_statements.py).
    assert statements == statements_of(chatbox, questions[0])
    reminder_read = len(statements) == len(RUNNING) + 1
    assert (statements[:1] + statements[2:] if reminder_read else statements) == RUNNING


def test_a_misunderstood_talk_needs_no_answer_query(chatbox):
    chatbox.talk("Bonjour")
    assert statements_of(chatbox, "zzqv wkkx") == RUNNING


def test_a_knowledge_edit_is_seen_by_the_next_talk_without_restart(chatbox, demo_bot):
    from knowledge.models import Answer, Formulation, KnowledgeItem

    item = KnowledgeItem.objects.get(bot=demo_bot, label="Make a transfer")
    assert chatbox.talk("zorglub")["knowledgeId"] != item.pk
    Formulation.objects.create(item=item, language="fr", text="zorglub")
    values = chatbox.talk("zorglub")
    assert values["knowledgeId"] == item.pk
    assert "Nouveau virement" in values["text"]
    # An answer read once per knowledge version is read again after an edit.
    answer = Answer.objects.filter(item=item, language="fr").first()
    answer.text = "Le virement se fait depuis l'espace client, rubrique Virements."
    answer.save()
    assert chatbox.talk("zorglub")["text"].startswith("Le virement se fait depuis l'espace client")
