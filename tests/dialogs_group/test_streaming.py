"""The export holds one batch of dialogs at a time, whatever their number: measured by the rows each
batch holds and by the queries it makes (three per batch), not by time."""

import json
from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext

from dialogs.bulk.export import Watch, export_rows
from dialogs.bulk.formats import jsonl_chunks
from dialogs.bulk.selection import Selection
from dialogs.models import Dialog, Interaction

from .conftest import at, make_dialog

BATCH = 10


def seed(bot, dialogs: int, interactions_each: int = 3):
    start = at("2025-09-01")
    for n in range(dialogs):
        exchanges = [(f"question {n}.{i}", f"answer {n}.{i}", {}) for i in range(interactions_each)]
        make_dialog(bot, start + timedelta(minutes=n), language="fr", space="Defaut", exchanges=exchanges)


def export(bot) -> tuple[Watch, list[dict], int]:
    watch = Watch()
    with CaptureQueriesContext(connection) as queries:
        rows = export_rows(Selection(bot_id=bot.pk), batch_size=BATCH, watch=watch)
        lines = [json.loads(line) for chunk in jsonl_chunks(rows) for line in chunk.splitlines()]
    return watch, lines, len(queries)


def test_the_rows_held_stay_one_batch_as_the_dialogs_grow(demo_bot):
    seed(demo_bot, 25)
    small, small_rows, small_queries = export(demo_bot)
    seed(demo_bot, 225)
    large, large_rows, large_queries = export(demo_bot)

    assert len(small_rows) == 25 * 3 and len(large_rows) == 250 * 3
    # Ten times the dialogs: the same largest batch held, ten times the batches.
    assert small.largest_batch == large.largest_batch == BATCH
    assert small.batch_sizes == [10, 10, 5]
    assert large.batch_sizes == [10] * 25
    # Three queries per batch (the dialogs, what their interactions say of live chat and feedback,
    # their interactions), and one more that finds the end after a full last batch.
    assert small_queries == 3 * 3
    assert large_queries == 3 * 25 + 1
    assert large.rows == len(large_rows)


def test_batches_follow_the_order_dialogs_started_even_at_equal_times(demo_bot):
    # Twelve dialogs started the same second: the keyset page goes on by id, losing none, repeating none.
    same = at("2025-09-02")
    made = [make_dialog(demo_bot, same, language="fr", exchanges=[("q", "a", {})]) for _ in range(12)]
    _, rows, _ = export(demo_bot)
    assert [row["contextId"] for row in rows] == [str(dialog.uuid) for dialog in made]


def test_a_dialog_interactions_come_in_order_even_across_batches(demo_bot):
    seed(demo_bot, 11, interactions_each=4)
    _, rows, _ = export(demo_bot)
    by_dialog: dict[str, list[str]] = {}
    for row in rows:
        by_dialog.setdefault(row["contextId"], []).append(row["time"])
    assert len(by_dialog) == 11
    assert all(times == sorted(times) and len(times) == 4 for times in by_dialog.values())


def test_filters_on_marks_keep_the_batches_bounded(demo_bot):
    """The live chat and feedback filters are applied to each batch: a batch may yield fewer dialogs,
    never hold more, and one with none left costs no interaction query."""
    seed(demo_bot, 25)
    chosen = list(Dialog.objects.filter(bot=demo_bot).order_by("first_activity", "id"))[20:22]
    Interaction.objects.filter(dialog__in=chosen).update(feedback="negative")
    watch = Watch()
    with CaptureQueriesContext(connection) as queries:
        rows = list(export_rows(Selection(bot_id=demo_bot.pk, feedback="negative"), batch_size=BATCH, watch=watch))
    assert {dialog[0] for dialog, _ in rows} == {str(dialog.uuid) for dialog in chosen}
    assert watch.batch_sizes == [10, 10, 5] and watch.largest_batch == BATCH
    # The first two batches hold no negative feedback: dialogs and marks only.
    assert len(queries) == 2 + 2 + 3
