"""An interaction keeps the item it answered (issue 28 item 1): its id and title stay when the item is
deleted or replaced, the reference becomes NULL, even when the item goes in the instant of the talk; the
readers (history, the dialog's transcript, analytics, the dialogs call, top knowledge) show what was
answered. On the database of the run: SQLite, and PostgreSQL in CI's second run."""

import importlib
import json
from datetime import UTC, timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone

from bots.models import Bot
from dialogs import engine, statements
from dialogs.models import Dialog, Interaction
from dialogs.requests import TalkRequest
from knowledge.models import Answer, Formulation, KnowledgeItem
from reporting.analytics.periods import Window
from reporting.analytics.report import build_report
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db

QUESTION = "Comment faire un virement ?"


@pytest.fixture
def transfer(demo_bot) -> KnowledgeItem:
    return KnowledgeItem.objects.get(bot=demo_bot, label="Make a transfer")


def stored(values: dict) -> Interaction:
    return Interaction.objects.get(pk=values["actionId"])


def test_a_talk_keeps_the_id_and_title_of_the_item_it_answered(chatbox, transfer):
    values = chatbox.talk(QUESTION)
    interaction = stored(values)
    assert values["knowledgeId"] == transfer.pk
    assert (interaction.knowledge_item_id, interaction.answered_id) == (transfer.pk, transfer.pk)
    assert interaction.answered_title == "Make a transfer"
    # An item without a label is called by its first formulation in the dialog's language.
    KnowledgeItem.objects.filter(pk=transfer.pk).update(label="")
    transfer.save(update_fields=["status"])  # a knowledge write: the next talk reads the new version
    assert (
        stored(chatbox.talk(QUESTION)).answered_title
        == Formulation.objects.filter(item=transfer, language="fr")[0].text
    )
    misunderstood = stored(chatbox.talk("zzqv wkkx"))
    assert (misunderstood.knowledge_item_id, misunderstood.answered_id, misunderstood.answered_title) == (
        None,
        None,
        "",
    )


def test_an_item_deleted_in_the_instant_of_the_write_leaves_a_null_reference(demo_bot, transfer):
    """The talk's own statements, as a talk that matched the item before it went writes them."""
    dialog = Dialog.objects.create(bot=demo_bot, language="fr")
    gone = transfer.pk
    transfer.delete()
    interaction = Interaction(
        dialog=dialog,
        bot_id=demo_bot.pk,
        user_input=QUESTION,
        answer="<p>Nouveau virement</p>",
        type_response="DMUnderstoodQuestion",
        knowledge_item_id=gone,
        answered_id=gone,
        answered_title="Make a transfer",
        language="fr",
    )
    statements.insert(interaction)
    dialog.current_node_id = gone
    statements.update(dialog, ("current_node",))
    row = Interaction.objects.get(pk=interaction.pk)
    assert (row.knowledge_item_id, row.answered_id, row.answered_title) == (None, gone, "Make a transfer")
    assert Dialog.objects.get(pk=dialog.pk).current_node_id is None
    # The one statement of a plain talk on PostgreSQL (the dialog's update with the interaction's insert).
    if statements.stores_talk_at_once():
        again = Interaction(dialog=dialog, bot_id=demo_bot.pk, knowledge_item_id=gone, answered_id=gone, language="fr")
        statements.store_talk(dialog, again, ("current_node",))
        assert Interaction.objects.get(pk=again.pk).knowledge_item_id is None


def test_a_talk_whose_answers_went_since_its_snapshot_answers_from_the_current_knowledge(chatbox, demo_bot, transfer):
    """The snapshot was read before an import replaced the item (new id, new answer): the talk that matched
    the old item finds its answers gone and answers again from the knowledge as it is now."""
    chatbox.talk("Bonjour")  # the snapshot of this version, built
    stale_bot = Bot.objects.get(pk=demo_bot.pk)
    replacement = KnowledgeItem.objects.create(
        bot=demo_bot, label="Make a transfer", status="published", tag=transfer.tag, position=transfer.position
    )
    for formulation in transfer.formulations.all():
        Formulation.objects.create(item=replacement, language=formulation.language, text=formulation.text)
    for answer in transfer.answers.all():
        Answer.objects.create(item=replacement, language=answer.language, space=answer.space, text="<p>Le nouveau.</p>")
    transfer.delete()
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    answered = engine.talk(stale_bot, TalkRequest(user_input=QUESTION, context_id=chatbox.context_id, language="fr"))
    assert (answered.knowledge_id, answered.text) == (replacement.pk, "<p>Le nouveau.</p>")
    row = Interaction.objects.get(pk=answered.interaction_id)
    assert (row.dialog_id, row.knowledge_item_id, row.answered_id) == (dialog.pk, replacement.pk, replacement.pk)


def test_readers_show_what_was_answered_after_the_item_went(client, chatbox, demo_bot, transfer):
    values = chatbox.talk(QUESTION)
    gone = transfer.pk
    transfer.delete()
    row = stored(values)
    assert (row.knowledge_item_id, row.answered_id) == (None, gone)

    # The chatbox's history replays the answer with its knowledgeId.
    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": chatbox.context_id}))
    assert [(i["user"], i.get("knowledgeId")) for i in history["interactions"]] == [(QUESTION, gone)]

    # The dialogs call (and export) gives the id.
    admin, token = make_persona(demo_bot.account)
    dialog = client.get(f"/servlet/api/dialogs/{chatbox.bot}/{chatbox.context_id}", HTTP_AUTHORIZATION=token)
    assert dialog.status_code == 200, dialog.content
    assert [i["knowledgeId"] for i in dialog.json()["interactions"]] == [gone]

    # The dialog's page names the item answered, without a link to a page that no longer exists.
    client.force_login(admin)
    page = client.get(f"/admin/dialogs/dialog/{row.dialog_id}/change/").content.decode()
    assert 'data-removed="1"' in page and "Make a transfer" in page
    assert f"/admin/knowledge/knowledgeitem/{gone}/change/" not in page

    # Analytics count it, named by its kept title, marked as gone.
    now = timezone.now()
    report = build_report(demo_bot, Window("Today", now - timedelta(days=1), now + timedelta(minutes=1), UTC))
    assert [(item.item_id, item.name, item.uses, item.removed) for item in report.top_items] == [
        (gone, "Make a transfer", 1, True)
    ]
    analytics = client.get(f"/admin/bots/analytics/?bot={demo_bot.pk}&period=Today").content.decode()
    assert 'data-testid="removed-item">Make a transfer<' in analytics

    # Top knowledge offers only what the bot can answer now.
    top = chatbox.values(chatbox.post(f"chat/topknowledge/{chatbox.bot}", {"language": "fr", "maxKnowledge": "10"}))
    assert gone not in [article["knowledgeId"] for article in json.loads(top["knowledgeArticles"])]


def test_the_knowledge_base_delete_unlinks_and_keeps(client, chatbox, demo_bot, transfer):
    values = chatbox.talk(QUESTION)
    _, token = make_persona(demo_bot.account)
    response = client.delete(f"/servlet/api/bot/knowledgebase/delete/{chatbox.bot}", HTTP_AUTHORIZATION=token)
    assert response.status_code == 200, response.content
    row = stored(values)
    assert (row.knowledge_item_id, row.answered_id, row.answered_title) == (None, transfer.pk, "Make a transfer")
    assert Dialog.objects.get(uuid=chatbox.context_id).current_node_id is None


def test_the_migration_keeps_what_rows_stored_before_answered(demo_bot, transfer):
    migration = importlib.import_module("dialogs.migrations.0008_interaction_keeps_answered_item")
    dialog = Dialog.objects.create(bot=demo_bot, language="en")
    labelled = Interaction.objects.create(dialog=dialog, bot_id=demo_bot.pk, knowledge_item=transfer, language="fr")
    unlabelled_item = KnowledgeItem.objects.create(bot=demo_bot, label="")
    Formulation.objects.create(item=unlabelled_item, language="fr", text="Une question ?", position=0)
    Formulation.objects.create(item=unlabelled_item, language="en", text="A question?", position=1)
    unlabelled = Interaction.objects.create(
        dialog=dialog, bot_id=demo_bot.pk, knowledge_item=unlabelled_item, language="en"
    )
    other_language = Interaction.objects.create(
        dialog=dialog, bot_id=demo_bot.pk, knowledge_item=unlabelled_item, language="de"
    )
    unanswered = Interaction.objects.create(dialog=dialog, bot_id=demo_bot.pk, language="fr")

    class Editor:  # what RunPython hands over: the connection
        pass

    editor = Editor()
    editor.connection = connection
    migration.keep_answered_items(apps, editor)
    kept = {row.pk: (row.answered_id, row.answered_title) for row in Interaction.objects.all()}
    assert kept[labelled.pk] == (transfer.pk, "Make a transfer")
    assert kept[unlabelled.pk] == (unlabelled_item.pk, "A question?")
    assert kept[other_language.pk] == (unlabelled_item.pk, "Une question ?")
    assert kept[unanswered.pk] == (None, "")
