"""A bot's dialogs as rows, one per interaction, streamed in constant memory: the dialogs are read in
batches (keyset pages in the order they started; inside a batch, by id) and each batch's interactions
through one query read chunk by chunk, so what is held at any time is one batch of dialogs and one
chunk of interactions.
JSON lines and CSV are two encodings of the same rows (formats.py)."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from django.db.models import Q

from ..models import ANSWERED_ID, Interaction
from .selection import Selection, dialog_marks

# Dialogs per batch: three queries per batch (the dialogs, their marks, their interactions); the
# batch's dialogs are all that is held between them.
BATCH_SIZE = 500
# Interaction rows fetched from the database cursor at a time.
CHUNK_SIZE = 2000

DIALOG_FIELDS = (
    "id",
    "first_activity",
    "uuid",
    "language",
    "space",
    "qualification_mode",
    "livechat",
    "client_id",
    "browser",
    "os",
    "user_url",
)
INTERACTION_FIELDS = (
    "dialog_id",
    "created_at",
    "user_input",
    "answer",
    "type_response",
    "answered",  # the item answered, kept when it has gone since (ANSWERED_ID)
    "human",
    "origin",
    "ask_feedback",
    "feedback",
    "feedback_comment",
)
LIVECHAT = DIALOG_FIELDS.index("livechat")
# The row's keys (JSON lines) and columns (CSV), in this order.
COLUMNS = (
    "contextId",
    "dialogStart",
    "language",
    "space",
    "qualificationMode",
    "livechat",
    "clientId",
    "browser",
    "os",
    "userUrl",
    "time",
    "userInput",
    "answer",
    "typeResponse",
    "knowledgeId",
    "human",
    "origin",
    "askFeedback",
    "feedback",
    "feedbackComment",
)
DIALOG_COLUMNS, INTERACTION_COLUMNS = COLUMNS[:10], COLUMNS[10:]


@dataclass
class Watch:
    """What an export held and asked for, batch by batch (tests and the benchmark read it)."""

    batches: int = 0
    largest_batch: int = 0
    rows: int = 0
    batch_sizes: list[int] = field(default_factory=list)

    def batch(self, dialogs: int) -> None:
        self.batches += 1
        self.largest_batch = max(self.largest_batch, dialogs)
        self.batch_sizes.append(dialogs)


def dialog_batches(selection: Selection, batch_size: int = BATCH_SIZE, watch: Watch | None = None):
    """The selected dialogs with their marks, read `batch_size` at a time in the order they started.
    Keyset pages (no OFFSET, no cursor left open between batches) walk the (bot, first_activity, id)
    index; the live chat and feedback filters are applied to each page's marks."""
    dialogs = selection.base_dialogs().order_by("first_activity", "id").values_list(*DIALOG_FIELDS)
    after = None
    while True:
        page = dialogs
        if after is not None:
            started, last_id = after
            page = page.filter(Q(first_activity__gt=started) | Q(first_activity=started, id__gt=last_id))
        batch = list(page[:batch_size])
        if not batch:
            return
        if watch is not None:
            watch.batch(len(batch))
        marks = dialog_marks({row[0]: row[LIVECHAT] for row in batch})
        kept = [row for row in batch if selection.keeps(marks[row[0]])]
        if kept:
            yield kept, marks
        if len(batch) < batch_size:
            return
        after = (batch[-1][1], batch[-1][0])


def export_rows(
    selection: Selection,
    *,
    client_ids: bool = False,
    batch_size: int = BATCH_SIZE,
    watch: Watch | None = None,
) -> Iterator[tuple]:
    """One (dialog columns, interaction columns) pair per interaction, in COLUMNS order; a dialog's
    interactions share the very same dialog tuple (the encoders write it once per dialog).
    `client_ids` False leaves clientId empty (the visitor's id is for administrators,
    product-behaviour.md §4.1)."""
    watch = watch if watch is not None else Watch()
    for batch, marks in dialog_batches(selection, batch_size, watch):
        dialogs = {row[0]: dialog_columns(row, marks[row[0]].livechat, client_ids) for row in batch}
        # In a batch, dialogs come by id (their creation order): ordering by the dialog's start here
        # joined every dialog of the table, 90 ms a batch on PostgreSQL, against 3 ms.
        interactions = (
            Interaction.objects.filter(dialog_id__in=list(dialogs))
            .annotate(answered=ANSWERED_ID)
            .order_by("dialog_id", "created_at", "id")
            .values_list(*INTERACTION_FIELDS)
        )
        for row in interactions.iterator(chunk_size=CHUNK_SIZE):
            watch.rows += 1
            yield dialogs[row[0]], interaction_columns(row)
        del dialogs, batch, marks


def dialog_columns(row: tuple, livechat: bool, client_ids: bool) -> tuple:
    _, started, uuid, language, space, qualification, _, client_id, browser, os, url = row
    return (
        str(uuid),
        started.isoformat(),
        language,
        space,
        qualification,
        livechat,
        client_id if client_ids else "",
        browser,
        os,
        url,
    )


def interaction_columns(row: tuple) -> tuple:
    _, created_at, user_input, answer, type_response, knowledge_id, human, origin, ask, feedback, comment = row
    return (
        created_at.isoformat(),
        user_input,
        answer,
        type_response,
        knowledge_id,
        human,
        origin,
        ask,
        feedback,
        comment,
    )


def interaction_json(interaction: Interaction) -> dict:
    """One interaction as the single-dialog view shows it: the interaction columns of a row."""
    values = [
        interaction.answered_item_id if name == "answered" else getattr(interaction, name)
        for name in INTERACTION_FIELDS
    ]
    return dict(zip(INTERACTION_COLUMNS, interaction_columns(values), strict=True))


def rows_progress(rows: Iterator[tuple], every: int, progress: Callable[[int], None]) -> Iterator[tuple]:
    """The same rows, calling `progress(n)` after each `every` rows (and for the last few)."""
    pending = 0
    for row in rows:
        yield row
        pending += 1
        if pending == every:
            progress(pending)
            pending = 0
    if pending:
        progress(pending)
