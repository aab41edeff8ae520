"""The talk hot path: how many database queries one talk costs, pinned."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db


def queries_of(chatbox, text: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        chatbox.talk(text)
    return [query["sql"] for query in captured.captured_queries]


def test_one_answered_talk_in_a_running_dialog_costs_five_queries(chatbox):
    chatbox.talk("Bonjour")  # opens the dialog and builds the matching snapshot
    sql = queries_of(chatbox, "Comment faire un virement ?")
    # bot, dialog, the answer (with its space fallback), the interaction insert, the dialog update
    # (plus the SAVEPOINT pair of the atomic block on engines that use one)
    statements = [s for s in sql if not s.upper().startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    assert len(statements) == 5, "\n".join(sql)


def test_a_misunderstood_talk_needs_no_answer_query(chatbox):
    chatbox.talk("Bonjour")
    sql = queries_of(chatbox, "zzqv wkkx")
    statements = [s for s in sql if not s.upper().startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    assert len(statements) == 4, "\n".join(sql)


def test_a_knowledge_edit_is_seen_by_the_next_talk_without_restart(chatbox, demo_bot):
    from knowledge.models import Formulation, KnowledgeItem

    item = KnowledgeItem.objects.get(bot=demo_bot, label="Make a transfer")
    assert chatbox.talk("zorglub")["knowledgeId"] != item.pk
    Formulation.objects.create(item=item, language="fr", text="zorglub")
    values = chatbox.talk("zorglub")
    assert values["knowledgeId"] == item.pk
    assert "Nouveau virement" in values["text"]
