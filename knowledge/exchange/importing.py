"""Importing a knowledge base file into a bot: check the whole file first, then replace the bot's
knowledge in one transaction, then let matching see it at once.

Pass 1 reads the file with every check (schema, references, duplicates) and writes nothing: a
refused file leaves the bot exactly as it was. Pass 2, inside the transaction, deletes the bot's
knowledge and streams the file's records into bulk row writers (COPY on PostgreSQL). The
transaction ends with one bump of the bot's knowledge version, so every worker rebuilds its
matching index on its next request.

Ids: tag and knowledge item ids are kept when no other bot uses them and the table's sequence
already handed them out (a file exported from this database, re-imported: tagIDs and knowledge ids
stay the same); otherwise the table gets fresh ids, in file order. Matching group uuids likewise.
"""

import time
import uuid as uuid_module
from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import ProtectedError, RestrictedError
from django.utils import timezone

from bots.models import DEFAULT_SPACE_ALIASES, Bot, BotLanguage, Space, bump_knowledge_version

from ..models import Answer, Formulation, GalleryImage, GlobalSentence, KnowledgeItem, MatchingGroup, Tag
from ..vectors import background
from ..xml import errors, records
from ..xml.errors import InvalidKnowledgeBaseFile
from ..xml.reader import KnowledgeBaseReader, SectionEnd, SectionStart, Summary, column_of
from . import columns, survey_part, vectors
from .branches import BranchRows
from .deleting import StillReferenced, delete_gallery, delete_knowledge
from .preferences import set_preference
from .rows import RowSink, datetime_value, json_value, plan_ids, refresh_statistics, uuid_value

ComplementTag = KnowledgeItem.complement_tags.through
ComplementItem = KnowledgeItem.complement_items.through


@dataclass
class ImportReport:
    """What an import did, as the servlet answers it."""

    bot_uuid: str
    counts: dict
    duration_ms: int = 0
    ids_kept: dict = field(default_factory=dict)
    # The formulations' vectors, computed in the background after the import (knowledge/vectors/):
    # state pending, done / total; None when matching runs without embeddings.
    vectors: dict | None = None

    def as_json(self) -> dict:
        answer = {
            "botUUID": self.bot_uuid,
            "imported": self.counts,
            "idsKept": self.ids_kept,
            "durationMs": self.duration_ms,
        }
        if self.vectors is not None:
            answer["vectors"] = self.vectors
        return answer


def check_file(bot: Bot, source, *, root: str = "knowledgeBase", progress=None) -> Summary:
    """Pass 1: read the whole file with every check, write nothing. Raises InvalidKnowledgeBaseFile."""
    reader = KnowledgeBaseReader(
        source,
        root=root,
        bot_languages=[*bot.language_codes(), bot.default_language],
        bot_spaces=list(bot.spaces.values_list("name", flat=True)),
        progress=progress,
    )
    for _ in reader:
        pass
    return reader.summary


def import_knowledge_base(
    bot: Bot, source, *, preferences: bool = False, progress=None, user=None, schedule_vectors: bool = True
) -> ImportReport:
    """Replace the bot's knowledge base with the file's (its gallery too when the file has one;
    its preferences too with `preferences`). `progress(phase, bytes_read)` is called now and then.
    `schedule_vectors=False` schedules no background vector job: the bot's matching index computes the
    missing vectors when it is built (the demo seed, as before it was a file)."""
    started = time.perf_counter()
    summary = check_file(bot, source, progress=_phase(progress, "checking"))
    with transaction.atomic():
        # One import of a bot at a time. NO KEY: talks, whose writes check the bot's key, are not held up.
        bot = Bot.objects.select_for_update(no_key=True).get(pk=bot.pk)
        loader = _Loader(bot, summary, source, preferences=preferences, user=user)
        vectors_kept = loader.item_ids is None and vectors.stash(bot)
        delete_knowledge(
            bot,
            gallery="gallery" in summary.sections,
            returning_item_ids=summary.item_ids if loader.item_ids is None else None,
        )
        for record in KnowledgeBaseReader(source, validate=False, progress=_phase(progress, "importing")):
            loader.add(record)
        loader.finish()
        if vectors_kept:
            vectors.restore()
        bump_knowledge_version(bot.pk)
        vector_job = background.schedule_import(bot.pk) if schedule_vectors else None
    refresh_statistics()
    return ImportReport(
        bot_uuid=str(bot.uuid),
        counts=_report_counts(summary, preferences=preferences),
        duration_ms=round((time.perf_counter() - started) * 1000),
        ids_kept=loader.ids_kept,
        vectors=vector_job,
    )


def import_gallery(bot: Bot, source, *, progress=None) -> ImportReport:
    """Replace the bot's image gallery with a gallery file's images."""
    started = time.perf_counter()
    summary = check_file(bot, source, root="gallery", progress=_phase(progress, "checking"))
    with transaction.atomic():
        bot = Bot.objects.select_for_update(no_key=True).get(pk=bot.pk)
        delete_gallery(bot)
        loader = _Loader(bot, summary, source)
        for record in KnowledgeBaseReader(source, root="gallery", validate=False):
            loader.add(record)
    return ImportReport(
        bot_uuid=str(bot.uuid),
        counts={"galleryImages": summary.counts["image"]},
        duration_ms=round((time.perf_counter() - started) * 1000),
    )


def _phase(progress, name):
    if progress is None:
        return None
    return lambda done: progress(name, done)


def _report_counts(summary: Summary, *, preferences: bool) -> dict:
    counts = summary.counts
    kinds = summary.item_kinds
    report = {
        "tags": counts["tag"],
        "matchingGroups": counts["matchingGroup"],
        "knowledgeItems": {
            "total": counts["knowledgeItem"],
            **{kind.value: kinds[kind.value] for kind in KnowledgeItem.Kind},
        },
        "formulations": counts["formulation"],
        "answers": counts["answer"],
        "globalSentences": counts["globalSentence"],
    }
    if "languages" in summary.sections:
        report["languages"] = counts["language"]
    if "spaces" in summary.sections:
        report["spaces"] = counts["space"]
    if "gallery" in summary.sections:
        report["galleryImages"] = counts["image"]
    if preferences and "preferences" in summary.sections:
        report["preferences"] = counts["preference"]
    return report


class _Loader:
    """Pass 2: records in, rows out. Assumes a file pass 1 accepted."""

    def __init__(self, bot: Bot, summary: Summary, source, *, preferences: bool = False, user=None):
        self.bot = bot
        self.source = source
        self.preferences = preferences
        self.user = user
        self.now = datetime_value(timezone.now())
        self.tag_ids = plan_ids(Tag, summary.tag_ids, bot)
        self.item_ids = plan_ids(KnowledgeItem, summary.item_ids, bot)
        taken = _uuids_taken_elsewhere(summary.group_uuids, bot)
        self.group_uuids = {old: str(uuid_module.uuid4()) for old in taken}
        self.ids_kept = {
            "tags": self.tag_ids is None,
            "knowledgeItems": self.item_ids is None,
            "matchingGroups": not taken,
        }
        self.spaces: dict[str, int] | None = None  # lower-cased name → id
        self.languages: list[str] = []
        self.space_names: list[str] = []
        self.tags = RowSink(Tag, ["id", "bot", "name", "parent"])
        self.groups = RowSink(MatchingGroup, ["bot", "uuid", "name", "category", "members"])
        # The file's columns, then what the import adds: the bot, the times; formulations' order and vector.
        self.items = RowSink(KnowledgeItem, [*columns.KNOWLEDGE_ITEM, "bot", "created_at", "updated_at"])
        self.formulations = RowSink(Formulation, [*columns.FORMULATION, "position", "vector"])
        self.answers = RowSink(Answer, columns.ANSWER)
        self.surveys = survey_part.part.SurveyLoader(bot)
        self.complement_tags = RowSink(ComplementTag, ["knowledgeitem", "tag"])
        # A target may come later in the file: the foreign keys are checked at commit (deferred).
        self.complement_items = RowSink(ComplementItem, ["from_knowledgeitem", "to_knowledgeitem"])
        self.sentences = RowSink(GlobalSentence, ["bot", "language", "kind", "text"])
        self.branches = BranchRows()
        self.sinks = (
            self.tags,
            self.groups,
            self.items,
            self.formulations,
            self.answers,
            self.complement_tags,
            self.complement_items,
            self.branches.sink,
            self.sentences,
        )

    def _tag(self, tag_id):
        if tag_id is None:
            return None
        return tag_id if self.tag_ids is None else self.tag_ids[tag_id]

    def _item(self, item_id):
        if item_id is None:
            return None
        return item_id if self.item_ids is None else self.item_ids[item_id]

    def add(self, record):
        handler = getattr(self, "_" + type(record).__name__, None)
        if handler is not None:
            handler(record)

    def finish(self):
        for sink in self.sinks:
            sink.flush()

    # -- sections -------------------------------------------------------------------------------

    def _SectionStart(self, record: SectionStart):
        if record.name == "languages":
            Bot.objects.filter(pk=self.bot.pk).update(default_language=record.attrib.get("default", ""))
        elif record.name == "spaces":
            # One default space per bot: clear the flag before the file's spaces set it again.
            Space.objects.filter(bot=self.bot).update(is_default=False)
        elif record.name == "knowledgeItems" and self.spaces is None:
            self.spaces = self._existing_spaces()

    def _SectionEnd(self, record: SectionEnd):
        if record.name == "languages":
            _delete(BotLanguage.objects.filter(bot=self.bot).exclude(code__in=self.languages), "languages")
        elif record.name == "spaces":
            keep = [self.spaces[name.lower()] for name in self.space_names]
            _delete(Space.objects.filter(bot=self.bot).exclude(pk__in=keep), "spaces")

    def _existing_spaces(self) -> dict[str, int]:
        spaces = {
            name.lower(): space_id for space_id, name in Space.objects.filter(bot=self.bot).values_list("id", "name")
        }
        default_id = self.bot.default_space().pk
        for alias in DEFAULT_SPACE_ALIASES:
            spaces.setdefault(alias, default_id)
        return spaces

    # -- records --------------------------------------------------------------------------------

    def _Language(self, record: records.Language):
        self.languages.append(record.code)
        updated = BotLanguage.objects.filter(bot=self.bot, code=record.code).update(available=record.available)
        if not updated:
            BotLanguage.objects.bulk_create([BotLanguage(bot=self.bot, code=record.code, available=record.available)])

    def _Space(self, record: records.Space):
        if self.spaces is None:
            self.spaces = {
                name.lower(): space_id
                for space_id, name in Space.objects.filter(bot=self.bot).values_list("id", "name")
            }
        self.space_names.append(record.name)
        key = record.name.lower()
        if key in self.spaces:
            Space.objects.filter(pk=self.spaces[key]).update(name=record.name, is_default=record.default)
        else:
            (space,) = Space.objects.bulk_create([Space(bot=self.bot, name=record.name, is_default=record.default)])
            if space.pk is None:
                space = Space.objects.get(bot=self.bot, name=record.name)
            self.spaces[key] = space.pk

    def _Tag(self, record: records.Tag):
        self.tags.add((self._tag(record.id), self.bot.pk, record.name, self._tag(record.parent)))

    def _MatchingGroup(self, record: records.MatchingGroup):
        group_uuid = self.group_uuids.get(record.uuid, record.uuid)
        self.groups.add((self.bot.pk, uuid_value(group_uuid), record.name, record.category, json_value(record.members)))

    def _KnowledgeItem(self, record: records.KnowledgeItem):
        item_id = self._item(record.id)
        complement = record.complement
        self.items.add(
            (
                item_id,
                record.kind,
                record.status,
                record.label,
                self._tag(record.tag),
                self._item(record.parent),
                record.direct_access,
                record.featured,
                record.position,
                json_value(record.event_rules if record.event_rules is not None else []),
                record.slot_variable,
                record.slot_type,
                json_value(record.slot_values),
                json_value(record.slot_question),
                json_value(record.slot_invalid),
                json_value([self._item(slot_id) for slot_id in record.slots]),
                json_value(record.slot_intro),
                complement.position if complement else "",
                complement.whole_knowledge_base if complement else False,
                complement.activation if complement else KnowledgeItem.Frequency.ALWAYS,
                complement.n if complement else 1,
                json_value(complement.conditions if complement else []),
                self.bot.pk,
                self.now,
                self.now,
            )
        )
        positions: Counter = Counter()
        for language, text, rewordable in record.formulations:
            self.formulations.add((item_id, language, text, rewordable, positions[language], None))
            positions[language] += 1
        for answer in record.answers:
            self.answers.add(
                (
                    item_id,
                    answer.language,
                    self.spaces[answer.space.lower()],
                    answer.text,
                    answer.template_name,
                    answer.template_data,
                    None if answer.sidebar is None else json_value(answer.sidebar),
                    answer.gui_action,
                    answer.url_redirect,
                    json_value(answer.steps),
                    answer.ask_feedback,
                    answer.livechat,
                    answer.competency,
                    self.surveys.answer_value(answer.survey),
                )
            )
            self.branches.add(item_id, answer, self.spaces[answer.space.lower()])
        if complement:
            for tag_id in dict.fromkeys(complement.tags):
                self.complement_tags.add((item_id, self._tag(tag_id)))
            for target_id in dict.fromkeys(complement.items):
                self.complement_items.add((item_id, self._item(target_id)))

    def _Survey(self, record):
        self.surveys.add(record)

    def _GlobalSentence(self, record: records.GlobalSentence):
        self.sentences.add((self.bot.pk, record.language, record.kind, record.text))

    def _Image(self, record: records.Image):
        # One at a time: an image can weigh megabytes.
        GalleryImage.objects.bulk_create(
            [GalleryImage(bot=self.bot, name=record.name, media_type=record.media_type, content=record.content)]
        )

    def _Preference(self, record: records.Preference):
        if not self.preferences:
            return
        self.groups.flush()  # a preference may name one of the file's matching groups
        refused = set_preference(self.bot, record.name, self._preference_value(record), user=self.user)
        if refused:
            column = column_of(self.source, record.line, "preference", "name")
            raise InvalidKnowledgeBaseFile(
                errors.INVALID_VALUE, f"Preference '{record.name}': {refused}", record.line, column
            )

    def _preference_value(self, record: records.Preference) -> str:
        # A preference naming one of the file's matching groups follows it to its new uuid.
        value = record.value.strip().lower()
        return self.group_uuids.get(value, record.value)


def _delete(queryset, what: str):
    """Spaces and languages the file drops; refused (409) while another app's rows still need them."""
    try:
        queryset.delete()
    except (ProtectedError, RestrictedError) as error:
        objects = getattr(error, "protected_objects", None) or getattr(error, "restricted_objects", ())
        names = ", ".join(sorted({str(obj) for obj in objects})[:5])
        raise StillReferenced(f"The file drops {what} that are still in use ({names}); nothing was changed.") from None


def _uuids_taken_elsewhere(uuids: list[str], bot: Bot) -> set[str]:
    taken = set()
    for start in range(0, len(uuids), 900):
        chunk = [uuid_module.UUID(value) for value in uuids[start : start + 900]]
        taken.update(
            str(value)
            for value in MatchingGroup.objects.filter(uuid__in=chunk).exclude(bot=bot).values_list("uuid", flat=True)
        )
    return taken
