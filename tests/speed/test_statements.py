"""The talk's hand-compiled statements (dialogs/statements.py) read and write exactly what the ORM
does, field by field, on the database of the run (SQLite, and PostgreSQL in CI's second run)."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import Bot
from dialogs import statements
from dialogs.models import Dialog, Interaction
from knowledge.models import KnowledgeItem

pytestmark = pytest.mark.django_db

AWKWARD = {"nom": "Zoé « l'aînée »", "n": 3, "list": [1, None, True], "nested": {"x": "\u00e9\u2603"}}


def fields_of(obj) -> dict:
    return {field.attname: getattr(obj, field.attname) for field in type(obj)._meta.concrete_fields}


@pytest.fixture
def bot():
    return Bot.objects.create(name="Statements", default_language="fr")


def test_a_dialog_inserted_and_read_back_equals_the_orms_reading(bot):
    now = timezone.now()
    dialog = Dialog(
        bot=bot,
        language="fr",
        space="Pro",
        variables=AWKWARD,
        client_id="client-1",
        qualification_mode=True,
        first_activity=now,
        last_activity=now,
        archived_at=None,
    )
    statements.insert(dialog)
    assert dialog.pk and not dialog._state.adding

    through_orm = Dialog.objects.select_related("bot").get(pk=dialog.pk)
    read = statements.dialog_with_bot(dialog.uuid, bot.uuid)
    assert fields_of(read) == fields_of(through_orm)
    assert fields_of(read.bot) == fields_of(through_orm.bot)
    assert read.variables == AWKWARD and read.last_activity == now and read.qualification_mode is True
    assert read.archived_at is None and read.current_node_id is None
    assert not read._state.adding and read._state.db == "default"


def test_the_read_needs_both_ids_to_match(bot):
    other = Bot.objects.create(name="Other", default_language="fr")
    dialog = Dialog(bot=bot, language="fr")
    statements.insert(dialog)
    assert statements.dialog_with_bot(dialog.uuid, other.uuid) is None
    assert statements.dialog_with_bot(uuid.uuid4(), bot.uuid) is None
    assert statements.dialog_with_bot(dialog.uuid, bot.uuid).pk == dialog.pk


def test_an_interaction_inserted_equals_the_same_one_created_by_the_orm(bot):
    dialog = Dialog.objects.create(bot=bot, language="fr")
    item = KnowledgeItem.objects.create(bot=bot)
    now = timezone.now()
    values = dict(
        dialog=dialog,
        bot_id=bot.pk,
        counted=False,
        created_at=now,
        user_input="Quels sont vos horaires ? <b>« »</b>",
        answer="<p>9h-18h</p>",
        type_response="DMAnswer",
        knowledge_item_id=item.pk,
        reworded_items=[item.pk, 7],
        language="fr",
        space="Defaut",
        origin="reword_auto",
        ask_feedback=True,
        payload={"sidebar": None, "template": {"a": [1, 2]}},
    )
    mine = Interaction(**values)
    statements.insert(mine)
    orms = Interaction.objects.create(**values)
    assert mine.pk and mine.pk != orms.pk
    stored_mine, stored_orms = Interaction.objects.get(pk=mine.pk), Interaction.objects.get(pk=orms.pk)
    assert {**fields_of(stored_mine), "id": 0} == {**fields_of(stored_orms), "id": 0}
    assert stored_mine.payload == values["payload"] and stored_mine.created_at == now


def test_the_update_writes_the_named_fields_only(bot):
    dialog = Dialog.objects.create(bot=bot, language="fr", space="Defaut", browser="Firefox")
    item = KnowledgeItem.objects.create(bot=bot)
    later = timezone.now() + timedelta(minutes=3)
    dialog.last_activity, dialog.language, dialog.variables = later, "en", AWKWARD
    dialog.current_node_id, dialog.misunderstood_streak = item.pk, 2
    dialog.browser = "not written"
    statements.update(dialog, ("last_activity", "language", "variables", "current_node", "misunderstood_streak"))
    stored = Dialog.objects.get(pk=dialog.pk)
    assert (stored.last_activity, stored.language, stored.variables) == (later, "en", AWKWARD)
    assert (stored.current_node_id, stored.misunderstood_streak) == (item.pk, 2)
    assert stored.browser == "Firefox"


def test_what_a_dialog_remembers_of_its_complements_equals_the_orms_reading(bot):
    from django.db.models import Count, OuterRef, Subquery

    from dialogs.activations import ComplementActivation

    start = timezone.now() - timedelta(hours=1)
    dialog = Dialog.objects.create(bot=bot, language="fr", first_activity=start, last_activity=start)
    other = Dialog.objects.create(bot=bot, language="fr", first_activity=start, last_activity=start)
    for minutes in range(1, 6):  # five interactions, one a minute; the other dialog's never count
        for each in (dialog, other):
            Interaction.objects.create(
                dialog=each, bot_id=bot.pk, user_input=f"q{minutes}", created_at=start + timedelta(minutes=minutes)
            )
    ComplementActivation.objects.create(
        dialog=dialog, complement_id=11, times=2, last_shown_at=start + timedelta(minutes=2)
    )
    ComplementActivation.objects.create(
        dialog=dialog, complement_id=12, times=1, last_shown_at=start + timedelta(minutes=9)
    )
    ComplementActivation.objects.create(dialog=other, complement_id=11, times=7, last_shown_at=start)

    since = (
        Interaction.objects.filter(dialog_id=OuterRef("dialog_id"), created_at__gt=OuterRef("last_shown_at"))
        .order_by()
        .values("dialog_id")
        .annotate(count=Count("pk"))
        .values("count")
    )
    through_orm = {
        complement_id: (times, since or 0)
        for complement_id, times, since in ComplementActivation.objects.filter(
            dialog_id=dialog.pk, complement_id__in=[11, 12, 13]
        )
        .annotate(since=Subquery(since))
        .values_list("complement_id", "times", "since")
    }
    assert statements.remembered(dialog.pk, [11, 12, 13]) == through_orm == {11: (2, 3), 12: (1, 0)}
    assert statements.remembered(dialog.pk, [13]) == {}


def test_a_bot_read_by_its_uuid_equals_the_orms_reading(bot):
    from bots.statements import bot_with_uuid

    read = bot_with_uuid(bot.uuid)
    assert fields_of(read) == fields_of(Bot.objects.get(pk=bot.pk))
    assert not read._state.adding
    assert bot_with_uuid(uuid.uuid4()) is None


def test_on_postgresql_the_talks_statements_are_prepared_on_their_connection(chatbox):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's (bots/prepared.py)")
    chatbox.talk("Bonjour")
    chatbox.talk("Comment faire un virement ?")
    chatbox.talk("Comment faire un virement ?")
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        prepared = [row[0] for row in cursor.fetchall()]
    # The dialog read with its bot, and the interaction insert with the dialog update (one statement):
    # parsed once per connection, then only executed.
    assert any('INNER JOIN "bots_bot"' in sql and 'FROM "dialogs_dialog"' in sql for sql in prepared), prepared
    assert any(
        sql.startswith('WITH "talk_dialog" AS (UPDATE "dialogs_dialog"') and 'INSERT INTO "dialogs_interaction"' in sql
        for sql in prepared
    ), prepared
    # Django's own statements keep binding on the client: nothing else is prepared.
    assert all('"dialogs_' in sql or '"bots_bot"' in sql for sql in prepared), prepared


def test_prepared_statements_can_be_turned_off_for_a_pooler(chatbox, settings):
    from django.db import connection

    from bots.statements import statement_cursor

    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    import psycopg

    with statement_cursor(connection) as cursor:
        assert not isinstance(cursor.cursor, psycopg.ClientCursor)  # bound on the server, prepared
    settings.DATABASE_PREPARED_STATEMENTS = False
    with statement_cursor(connection) as cursor:
        assert isinstance(cursor.cursor, psycopg.ClientCursor)  # Django's own: bound on the client
    values = chatbox.talk("Comment faire un virement ?")
    assert "virement" in values["text"].lower()
