"""Storing Rasa NLU data as knowledge, in one transaction: each intent is a knowledge item (found again by
its intent name, so a re-import updates instead of duplicating), its examples the item's formulations in
the import's language, each synonym a matching group; an `utter_<intent>` response is the answer."""

import html
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max

from bots.models import Bot

from ..matching.groups import GroupExpander
from ..matching.types import MatchingGroupDef
from ..models import Answer, Formulation, KnowledgeItem, MatchingGroup
from ..signals import bump_knowledge_version
from . import rasa_format
from .models import ExternalIntent
from .rasa_export import example_line
from .rasa_reader import Intent, NluData

PLACEHOLDER = "[Imported from Rasa: write the answer to the intent “{name}”.]"


@dataclass
class Counts:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def add(self, created: bool, changed: bool) -> None:
        if created:
            self.created += 1
        elif changed:
            self.updated += 1
        else:
            self.unchanged += 1


@dataclass
class RasaImportReport:
    language: str
    intents: Counts = field(default_factory=Counts)
    synonyms: Counts = field(default_factory=Counts)
    examples_added: int = 0
    examples_removed: int = 0
    drafts: int = 0
    skipped: list = field(default_factory=list)

    def as_json(self, bot) -> dict:
        return {
            "botUUID": str(bot.uuid),
            "language": self.language,
            "intents": vars(self.intents),
            "synonyms": vars(self.synonyms),
            "examples": {"added": self.examples_added, "removed": self.examples_removed},
            "draftsWithPlaceholder": self.drafts,
            "skipped": self.skipped,
        }


def import_nlu(bot: Bot, data: NluData, language: str) -> RasaImportReport:
    report = RasaImportReport(language=language, skipped=list(data.skipped))
    with transaction.atomic():
        # One import of a bot at a time: a second one waits, then finds what the first stored.
        Bot.objects.select_for_update().filter(pk=bot.pk).first()
        changed = store_synonyms(bot, data.synonyms, report)
        changed = store_intents(bot, list(data.intents.values()), language, report) or changed
        if changed:
            bump_knowledge_version(bot.pk)
    return report


def store_synonyms(bot, synonyms: dict[str, list[str]], report: RasaImportReport) -> bool:
    existing = {group.name.lower(): group for group in MatchingGroup.objects.filter(bot=bot)}
    new = []
    for name, members in synonyms.items():
        group = existing.get(name.lower())
        if group is None:
            new.append(MatchingGroup(bot=bot, name=name, members=members))
        elif list(group.members or []) != members:
            MatchingGroup.objects.filter(pk=group.pk).update(members=members)
        report.synonyms.add(group is None, group is not None and list(group.members or []) != members)
    MatchingGroup.objects.bulk_create(new)
    return bool(new) or report.synonyms.updated > 0


def store_intents(bot, intents: list[Intent], language: str, report: RasaImportReport) -> bool:
    groups = MatchingGroup.objects.filter(bot=bot).values_list("name", "members")
    expander = GroupExpander(MatchingGroupDef(name, [str(m) for m in members or []]) for name, members in groups)
    known = dict(
        ExternalIntent.objects.filter(bot=bot, name__in=[i.name for i in intents]).values_list("name", "item_id")
    )
    items = KnowledgeItem.objects.in_bulk(known.values())
    space = bot.default_space()
    next_position = (KnowledgeItem.objects.filter(bot=bot).aggregate(top=Max("position"))["top"] or 0) + 1
    changed = False
    for intent in intents:
        item = items.get(known.get(intent.name))
        created = item is None
        if created:
            item = KnowledgeItem.objects.create(
                bot=bot,
                label=intent.name[:300],
                position=next_position,
                status=KnowledgeItem.Status.PUBLISHED if intent.response else KnowledgeItem.Status.DRAFT,
            )
            next_position += 1
            ExternalIntent.objects.create(bot=bot, item=item, name=intent.name)
            report.drafts += intent.response is None
        item_changed = store_examples(item, intent.examples, language, expander, report)
        item_changed = store_answer(item, intent, language, space, created) or item_changed
        report.intents.add(created, item_changed)
        changed = changed or created or item_changed
    return changed


def store_examples(item, examples: list[str], language: str, expander, report: RasaImportReport) -> bool:
    """The item's formulations in `language` become the examples. A formulation whose export is one of
    them stays as it is (its `{group}` references and computed vector with it)."""
    wanted = list(examples)
    removed = []
    for pk, text in Formulation.objects.filter(item=item, language=language).values_list("pk", "text"):
        exported = rasa_format.one_line(rasa_format.plain_example(example_line(expander, text)))
        if exported in wanted:
            wanted.remove(exported)
        else:
            removed.append(pk)
    if removed:
        Formulation.objects.filter(pk__in=removed).delete()
    start = (Formulation.objects.filter(item=item).aggregate(top=Max("position"))["top"] or 0) + 1
    Formulation.objects.bulk_create(
        Formulation(item=item, language=language, text=text, position=start + index)
        for index, text in enumerate(wanted)
    )
    report.examples_added += len(wanted)
    report.examples_removed += len(removed)
    return bool(wanted or removed)


def store_answer(item, intent: Intent, language: str, space, created: bool) -> bool:
    """The response's text as the answer in the default space; a new item without one gets a placeholder
    the editor sees (and stays a draft); an existing item without one keeps its answers."""
    if intent.response is None and not created:
        return False
    text = answer_html(intent.response) if intent.response else html.escape(PLACEHOLDER.format(name=intent.name))
    answer = Answer.objects.filter(item=item, language=language, space=space).first()
    if answer is None:
        Answer.objects.bulk_create([Answer(item=item, language=language, space=space, text=text)])
        return True
    if answer.text == text:
        return False
    Answer.objects.filter(pk=answer.pk).update(text=text)
    return True


def answer_html(text: str) -> str:
    """A Rasa response (plain text) as an answer (HTML): escaped, its line breaks kept."""
    return "<br>".join(html.escape(line, quote=False) for line in text.strip().splitlines())
