"""Exporting a bot's knowledge base: database rows to records to XML bytes, a chunk at a time.

Memory stays flat whatever the size: knowledge items come from a server-side cursor in
decision-tree order (a recursive query sorts them), their formulations and answers are fetched a
batch of items at a time, images one at a time. Everything is read in one snapshot, so an import
committed meanwhile shows either whole or not at all.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.models import Case, Q, Value, When

from bots.models import Bot

from ..models import Answer, Formulation, GalleryImage, GlobalSentence, KnowledgeItem, MatchingGroup, Tag
from ..xml import records
from ..xml.reader import MAX_NESTING
from ..xml.writer import KnowledgeBaseWriter
from . import columns, survey_part
from .branches import add_branches
from .preferences import bot_preferences
from .rows import quote

CHUNK_BYTES = 256 * 1024
ITEM_BATCH = 900  # items whose formulations and answers are fetched together (SQLite: ≤ 999 parameters)
ComplementTag = KnowledgeItem.complement_tags.through
ComplementItem = KnowledgeItem.complement_items.through


def export_knowledge_base(
    bot: Bot, *, gallery: bool = True, preferences: bool = False, progress=None
) -> Iterator[bytes]:
    """The bot's knowledge base file, as successive chunks of bytes. `progress(items_written)` is
    called now and then."""
    with _snapshot():
        writer = KnowledgeBaseWriter(records.Header(bot_uuid=str(bot.uuid), bot_name=bot.name))
        for _ in _knowledge_base(writer, bot, gallery=gallery, preferences=preferences, progress=progress):
            if writer.pending >= CHUNK_BYTES:
                yield writer.take()
        yield writer.finish()


def export_gallery(bot: Bot) -> Iterator[bytes]:
    """The bot's image gallery alone, as a gallery file."""
    with _snapshot():
        writer = KnowledgeBaseWriter(records.Header(root="gallery", bot_uuid=str(bot.uuid), bot_name=bot.name))
        for _ in _images(writer, bot, section=False):
            yield writer.take()
        yield writer.finish()


def _knowledge_base(writer, bot, *, gallery: bool, preferences: bool, progress):
    writer.open_section("languages", {"default": bot.default_language})
    for code, available in bot.languages.order_by("id").values_list("code", "available"):
        writer.language(records.Language(code, available))
    writer.close_section()

    spaces = sorted(bot.spaces.values_list("id", "name", "is_default"), key=lambda s: (not s[2], s[1], s[0]))
    writer.open_section("spaces")
    for _, name, is_default in spaces:
        writer.space(records.Space(name, is_default))
    writer.close_section()
    space_names = {space_id: name for space_id, name, _ in spaces}

    writer.open_section("tags")
    tag_ids = set()
    for tag in _tag_tree(bot):
        tag_ids.add(tag.id)
        writer.tag(tag)
    writer.close_section()
    yield

    writer.open_section("matchingGroups")
    groups = (
        MatchingGroup.objects.filter(bot=bot)
        .order_by("category", "name", "id")
        .values_list("uuid", "name", "category", "members")
    )
    for count, (uuid, name, category, members) in enumerate(groups.iterator(chunk_size=2000)):
        writer.matching_group(records.MatchingGroup(str(uuid), name, category, [str(m) for m in members or []]))
        if count % 500 == 0:
            yield
    writer.close_section()

    survey_part.part.write_surveys(writer, bot)

    writer.open_section("knowledgeItems")
    written = 0
    for batch in _item_batches(bot):
        for item in _items_with_parts(batch, space_names, tag_ids, bot.default_language):
            writer.knowledge_item(item)
        written += len(batch)
        if progress is not None:
            progress(written)
        yield
    writer.close_section()

    writer.open_section("globalSentences")
    for language, kind, text in (
        GlobalSentence.objects.filter(bot=bot).order_by("language", "kind").values_list("language", "kind", "text")
    ):
        writer.global_sentence(records.GlobalSentence(language, kind, text))
    writer.close_section()
    yield

    if gallery:
        yield from _images(writer, bot)
    if preferences:
        _preferences(writer, bot)


def _images(writer, bot, *, section: bool = True):
    """The gallery's images, one query each (an image may weigh megabytes); inside a knowledge base
    they form its gallery section, in a gallery file they sit under the root."""
    if section:
        writer.open_section("gallery")
    images = sorted(GalleryImage.objects.filter(bot=bot).values_list("id", "name", "media_type"), key=lambda i: i[1:])
    for image_id, name, media_type in images:
        content = GalleryImage.objects.filter(pk=image_id).values_list("content", flat=True).first()
        writer.image(records.Image(name, media_type, bytes(content or b"")))
        yield
    if section:
        writer.close_section()


def _preferences(writer, bot):
    writer.open_section("preferences")
    for name, value in bot_preferences(bot):
        writer.preference(records.Preference(name, value))
    writer.close_section()


def _tag_tree(bot) -> Iterator[records.Tag]:
    """Tags depth-first, siblings by name (a bot has tens of tags, not millions: sorted in memory)."""
    rows = list(Tag.objects.filter(bot=bot).values_list("id", "parent_id", "name"))
    known = {tag_id for tag_id, _, _ in rows}
    children: dict[int | None, list] = {}
    for tag_id, parent_id, name in rows:
        children.setdefault(parent_id if parent_id in known else None, []).append((name, tag_id))
    stack = [(None, tag_id, name, 0) for name, tag_id in sorted(children.get(None, []), reverse=True)]
    seen = set()
    while stack:
        parent_id, tag_id, name, depth = stack.pop()
        if tag_id in seen or depth >= MAX_NESTING:
            continue
        seen.add(tag_id)
        yield records.Tag(tag_id, name, parent_id, depth)
        for child_name, child_id in sorted(children.get(tag_id, []), reverse=True):
            stack.append((tag_id, child_id, child_name, depth + 1))


def _item_tree_sql() -> str:
    """Items depth-first, siblings by (position, id): the path of (position, id) pairs sorts them."""
    table = quote(KnowledgeItem._meta.db_table)
    fields = ", ".join(f"k.{quote(KnowledgeItem._meta.get_field(name).column)}" for name in columns.KNOWLEDGE_ITEM)
    if connection.vendor == "postgresql":
        root_path, step = "ARRAY[position::bigint, id]", "t.path || ARRAY[k.position::bigint, k.id]"
    else:
        root_path = "printf('%%020d%%020d', position, id)"
        step = "t.path || printf('%%020d%%020d', k.position, k.id)"
    return f"""
        WITH RECURSIVE tree (id, depth, path) AS (
            SELECT id, 0, {root_path} FROM {table} WHERE bot_id = %s AND parent_id IS NULL
            UNION ALL
            SELECT k.id, t.depth + 1, {step}
            FROM {table} k JOIN tree t ON k.parent_id = t.id
            WHERE k.bot_id = %s AND t.depth < {MAX_NESTING - 1}
        )
        SELECT t.depth, {fields} FROM tree t JOIN {table} k ON k.id = t.id ORDER BY t.path
    """


def _item_batches(bot) -> Iterator[list[tuple]]:
    # A server-side cursor on PostgreSQL: rows stream instead of arriving all at once.
    with connection.chunked_cursor() as cursor:
        cursor.execute(_item_tree_sql(), [bot.pk, bot.pk])
        while batch := cursor.fetchmany(ITEM_BATCH):
            yield batch


def _items_with_parts(batch, space_names, tag_ids, default_language: str) -> Iterator[records.KnowledgeItem]:
    ids = [row[1] for row in batch]
    formulations: dict[int, list] = {}
    # The bot's default language first, then the others by code: an import numbers formulations in file
    # order, and lists show an item's first one, so a round trip keeps what people see ("Bonjour", not "Hello").
    default_first = Case(When(language=default_language, then=Value(0)), default=Value(1))
    for item_id, language, text, rewordable in (
        Formulation.objects.filter(item_id__in=ids)
        .order_by("item_id", default_first, "language", "position", "id")
        .values_list(*columns.FORMULATION)
    ):
        formulations.setdefault(item_id, []).append((language, text, rewordable))
    answers: dict[int, list] = {}
    for row in Answer.objects.filter(item_id__in=ids).values_list(*columns.ANSWER):
        (
            item_id,
            language,
            space_id,
            text,
            template_name,
            template_data,
            sidebar,
            gui_action,
            url_redirect,
            steps,
            feedback,
            livechat,
            competency,
            survey,
        ) = row
        answers.setdefault(item_id, []).append(
            records.Answer(
                language=language,
                space=space_names.get(space_id, ""),
                text=text,
                template_name=template_name,
                template_data=template_data if template_name else "",
                sidebar=sidebar if isinstance(sidebar, dict) else None,
                gui_action=gui_action,
                url_redirect=url_redirect,
                steps=steps if isinstance(steps, list) else [],
                ask_feedback=feedback,
                livechat=livechat,
                competency=competency,
                survey=str(survey) if survey else "",
            )
        )
    add_branches(answers, ids, space_names)
    featured = set(KnowledgeItem.objects.filter(pk__in=ids, featured=True).values_list("id", flat=True))
    slot_filling = _slot_filling(ids)
    complement_rules = _complement_rules([row[1] for row in batch if row[2] == KnowledgeItem.Kind.COMPLEMENTARY])
    complement_tags: dict[int, list] = {}
    for item_id, tag_id in (
        ComplementTag.objects.filter(knowledgeitem_id__in=ids)
        .order_by("knowledgeitem_id", "tag_id")
        .values_list("knowledgeitem_id", "tag_id")
    ):
        if tag_id in tag_ids:
            complement_tags.setdefault(item_id, []).append(tag_id)

    for depth, *values in batch:
        row = dict(zip(columns.KNOWLEDGE_ITEM, values, strict=True))
        item_id, kind, rules = row["id"], row["kind"], row["event_rules"]
        item = records.KnowledgeItem(
            id=item_id,
            kind=kind,
            status=row["status"],
            label=row["label"],
            tag=row["tag"] if row["tag"] in tag_ids else None,
            parent=row["parent"],
            direct_access=bool(row["direct_access"]),
            featured=item_id in featured,
            depth=depth,
            formulations=formulations.get(item_id, []),
            answers=sorted(answers.get(item_id, []), key=lambda a: (a.language, a.space)),
        )
        if kind == KnowledgeItem.Kind.SLOT:
            item.slot_variable = row["slot_variable"]
        elif kind == KnowledgeItem.Kind.EVENT:
            rules = json.loads(rules) if isinstance(rules, str) else rules
            item.event_rules = rules if isinstance(rules, list) else []
        elif kind == KnowledgeItem.Kind.COMPLEMENTARY:
            item.complement = records.Complement(
                position=row["complement_position"] or KnowledgeItem.Position.AFTER,
                whole_knowledge_base=bool(row["complement_all"]),
                tags=complement_tags.get(item_id, []),
            )
            _add_complement_rules(item.complement, complement_rules.get(item_id))
        _add_slot_filling(item, slot_filling.get(item_id))
        yield item


def _complement_rules(ids: list[int]) -> dict[int, tuple]:
    """Complementary items' activation, n, conditions and target items: (activation, n, conditions, items)."""
    if not ids:
        return {}
    targets: dict[int, list[int]] = {}
    for complement_id, item_id in (
        ComplementItem.objects.filter(from_knowledgeitem_id__in=ids)
        .order_by("from_knowledgeitem_id", "to_knowledgeitem_id")
        .values_list("from_knowledgeitem_id", "to_knowledgeitem_id")
    ):
        targets.setdefault(complement_id, []).append(item_id)
    return {
        item_id: (activation, n, conditions, targets.get(item_id, []))
        for item_id, activation, n, conditions in KnowledgeItem.objects.filter(pk__in=ids).values_list(
            "id", "complement_frequency", "complement_n", "complement_conditions"
        )
    }


def _add_complement_rules(complement: records.Complement, rules: tuple | None):
    if rules is None:
        return
    activation, n, conditions, items = rules
    complement.activation = activation or KnowledgeItem.Frequency.ALWAYS
    complement.n = n or 1
    complement.conditions = [c for c in conditions if isinstance(c, dict)] if isinstance(conditions, list) else []
    complement.items = items


def _slot_filling(ids: list[int]) -> dict[int, tuple]:
    """Slot items' and slot-needing items' slot filling data, by item id (a query or two a batch). A
    needed slot that is no slot item any more is left out (the file would refer to nothing)."""
    found = {
        row[0]: row[1:]
        for row in KnowledgeItem.objects.filter(pk__in=ids)
        .filter(Q(kind=KnowledgeItem.Kind.SLOT) | ~Q(slots=[]))
        .values_list("id", "kind", "slot_type", "slot_values", "slot_question", "slot_invalid", "slots", "slot_intro")
    }
    needed = {n for row in found.values() if isinstance(row[5], list) for n in row[5] if isinstance(n, int)}
    if needed:
        slots = set(
            KnowledgeItem.objects.filter(pk__in=needed, kind=KnowledgeItem.Kind.SLOT).values_list("id", flat=True)
        )
        for item_id, row in found.items():
            if isinstance(row[5], list):
                found[item_id] = (*row[:5], [n for n in row[5] if n in slots], row[6])
    return found


def _add_slot_filling(item: records.KnowledgeItem, found: tuple | None):
    if found is None:
        return

    def texts(value) -> dict:
        return {str(k): str(v) for k, v in value.items() if v} if isinstance(value, dict) else {}

    kind, slot_type, values, question, invalid, slots, intro = found
    if kind == KnowledgeItem.Kind.SLOT:
        item.slot_type = slot_type
        item.slot_values = [str(v) for v in values] if isinstance(values, list) else []
        item.slot_question, item.slot_invalid = texts(question), texts(invalid)
    else:
        item.slots = [n for n in slots if isinstance(n, int)] if isinstance(slots, list) else []
        item.slot_intro = texts(intro)


@contextmanager
def _snapshot():
    """One consistent read of the database for the whole export, without blocking writers."""
    if connection.in_atomic_block:
        yield  # already inside a transaction (a test, a caller's own): read in it
        return
    if connection.vendor == "postgresql":
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                # The recursive query's row estimate is huge; compiling it (JIT) costs more than running it.
                cursor.execute("SET LOCAL jit = off")
            yield
        return
    if connection.vendor == "sqlite":
        # Django's SQLite transactions start IMMEDIATE (a write lock); a plain BEGIN reads a WAL
        # snapshot and lets the chat keep writing.
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("BEGIN")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("ROLLBACK")
        return
    yield
