"""What complementary answers cost a talk, statement by statement (on the database of the run): nothing
for a plain talk or a complement used every time; one read of what the dialog remembers and one upsert
when a complement of limited frequency is shown; the read alone when its frequency says no."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.speed.test_talk_queries import RUNNING, TRANSACTION_WRITES, described_with

from .conftest import make_complement, make_item

pytestmark = pytest.mark.django_db

# (An upsert's "DO UPDATE SET" names no table.)
TABLES = re.compile(r'(?:FROM|INTO|UPDATE|JOIN)\s+(?!SET\b)"?(\w+)"?', re.IGNORECASE)
# A reference to a knowledge item is written as "that id if the item still exists" (dialogs/statements.py): a
# lookup inside the statement, by primary key, where the foreign key check looked anyway; not another table.
ITEM_LOOKUP = re.compile(r'\(SELECT [^()]*? FROM "?knowledge_knowledgeitem"? WHERE [^()]*\)', re.IGNORECASE)
CARD = "Comment activer ma carte ?"  # the demo's card reminder follows it once per dialog
REMINDER = "ne vous demandera jamais votre code"


def statements(chatbox, text: str, **fields) -> list[str]:
    """Each statement of one talk as 'VERB table…' (every table it reads or writes, in order of first
    mention); the test's own SAVEPOINTs are left out."""
    with CaptureQueriesContext(connection) as captured:
        values = chatbox.talk(text, **fields)
    found = []
    for query in captured.captured_queries:
        sql = ITEM_LOOKUP.sub("%s", query["sql"].strip())
        verb = sql.split(None, 1)[0].upper()
        if verb == "WITH":  # a plain talk's writes on PostgreSQL
            found.append(described_with(sql))
        elif verb not in ("SAVEPOINT", "RELEASE"):
            found.append(" ".join([verb, *dict.fromkeys(TABLES.findall(sql))]))
    chatbox.last = values
    return found


def test_a_plain_talk_still_costs_three_statements(chatbox):
    chatbox.talk("Bonjour")
    chatbox.talk("Comment faire un virement ?")  # its answer is read once per knowledge version
    assert statements(chatbox, "Comment faire un virement ?") == RUNNING
    assert statements(chatbox, "zzqv wkkx") == RUNNING


def test_a_complement_used_every_time_costs_nothing(chatbox, demo_bot, wealth):
    make_complement(demo_bot, "Tout.", whole=True)
    chatbox.talk("Bonjour")
    chatbox.talk("Puis-je louer un coffre-fort ?")
    assert statements(chatbox, "Puis-je louer un coffre-fort ?") == RUNNING
    assert chatbox.last["text"] == "Oui, en agence.<hr/>Tout."


def test_a_once_per_dialog_complement_costs_a_read_and_an_upsert_when_shown(chatbox):
    chatbox.talk("Bonjour")
    chatbox.talk("Comment activer ma carte ?", hidden=True, variables='{"x": "1"}')  # reads the answers
    chatbox.context_id = ""
    chatbox.talk("Bonjour")
    shown = statements(chatbox, CARD)
    assert REMINDER in chatbox.last["text"]
    assert shown == [
        "SELECT dialogs_dialog bots_bot",
        "SELECT dialogs_interaction dialogs_complementactivation",
        "INSERT dialogs_complementactivation",
        *TRANSACTION_WRITES,
    ]
    not_again = statements(chatbox, CARD)
    assert REMINDER not in chatbox.last["text"]
    assert not_again == [RUNNING[0], "SELECT dialogs_interaction dialogs_complementactivation", *RUNNING[1:]]


def test_a_new_dialog_shows_it_without_reading_anything_more(chatbox, demo_bot):
    chatbox.talk(CARD)
    chatbox.context_id = ""
    opened = statements(chatbox, CARD)
    assert REMINDER in chatbox.last["text"]
    assert opened == [
        "SELECT bots_bot",
        "INSERT dialogs_dialog",
        "INSERT dialogs_complementactivation",
        "INSERT dialogs_interaction",
    ]


def test_a_talk_no_limited_complement_targets_costs_nothing_more(chatbox, demo_bot):
    other = make_item(demo_bot, "Puis-je louer un coffre-fort ?", "Oui, en agence.")
    chatbox.talk(CARD)
    chatbox.talk("Puis-je louer un coffre-fort ?")
    assert statements(chatbox, "Puis-je louer un coffre-fort ?") == RUNNING
    assert chatbox.last["knowledgeId"] == other.pk
