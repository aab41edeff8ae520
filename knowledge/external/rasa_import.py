"""Storing Rasa NLU data as knowledge, in one transaction: each intent is a knowledge item (found again by
its intent name, so a re-import updates instead of duplicating), its examples the item's formulations in
the import's language, each synonym a matching group; an `utter_<intent>` response is the answer."""

import html
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max

from bots.models import Bot, bump_knowledge_version

from ..matching.groups import GroupExpander
from ..matching.types import MatchingGroupDef
from ..models import Answer, Formulation, KnowledgeItem, MatchingGroup
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
        # One import of a bot at a time: a second one waits, then finds what the first stored. NO KEY: talks,
        # whose writes check the bot's key, are not held up.
        Bot.objects.select_for_update(no_key=True).filter(pk=bot.pk).first()
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
    """New intents are created in bulk; known ones compared with what their items hold, in a few queries
    for the whole file whatever its size."""
    known = dict(
        ExternalIntent.objects.filter(bot=bot, name__in=[i.name for i in intents]).values_list("name", "item_id")
    )
    space = bot.default_space()
    created = create_items(bot, [i for i in intents if i.name not in known], language, space, report)
    updated = update_items([(i, known[i.name]) for i in intents if i.name in known], language, space, report)
    return created or updated


def create_items(bot, intents: list[Intent], language: str, space, report: RasaImportReport) -> bool:
    if not intents:
        return False
    top = KnowledgeItem.objects.filter(bot=bot).aggregate(top=Max("position"))["top"] or 0
    items = KnowledgeItem.objects.bulk_create(
        KnowledgeItem(
            bot=bot,
            label=intent.name[:300],
            position=top + index,
            status=KnowledgeItem.Status.PUBLISHED if intent.response else KnowledgeItem.Status.DRAFT,
        )
        for index, intent in enumerate(intents, start=1)
    )
    ExternalIntent.objects.bulk_create(
        ExternalIntent(bot=bot, item=item, name=intent.name) for item, intent in zip(items, intents, strict=True)
    )
    Formulation.objects.bulk_create(
        Formulation(item=item, language=language, text=text, position=index)
        for item, intent in zip(items, intents, strict=True)
        for index, text in enumerate(intent.examples)
    )
    Answer.objects.bulk_create(
        Answer(item=item, language=language, space=space, text=answer_text(intent))
        for item, intent in zip(items, intents, strict=True)
    )
    for intent in intents:
        report.intents.add(True, True)
        report.examples_added += len(intent.examples)
        report.drafts += intent.response is None
    return True


def update_items(known: list[tuple[Intent, int]], language: str, space, report: RasaImportReport) -> bool:
    """An item's formulations in `language` become the intent's examples: a formulation whose export is
    one of them stays as it is (its `{group}` references and computed vector with it), the others go,
    the missing examples are added. A response replaces the answer in the default space."""
    if not known:
        return False
    item_ids = [item_id for _, item_id in known]
    bot_id = KnowledgeItem.objects.filter(pk=item_ids[0]).values_list("bot_id", flat=True).get()
    groups = MatchingGroup.objects.filter(bot_id=bot_id).values_list("name", "members")
    expander = GroupExpander(MatchingGroupDef(name, [str(m) for m in members or []]) for name, members in groups)
    held: dict[int, list[tuple[int, str]]] = {}
    formulations = Formulation.objects.filter(item_id__in=item_ids, language=language).order_by("position", "id")
    for pk, item_id, text in formulations.values_list("pk", "item_id", "text"):
        held.setdefault(item_id, []).append((pk, text))
    tops = dict(
        Formulation.objects.filter(item_id__in=item_ids)
        .values("item_id")
        .annotate(top=Max("position"))
        .values_list("item_id", "top")
    )
    answers = {
        answer.item_id: answer for answer in Answer.objects.filter(item_id__in=item_ids, language=language, space=space)
    }
    removed, added, new_answers, changed = [], [], [], False
    for intent, item_id in known:
        wanted = list(intent.examples)
        gone = []
        for pk, text in held.get(item_id, []):
            exported = rasa_format.one_line(rasa_format.plain_example(example_line(expander, text)))
            if exported in wanted:
                wanted.remove(exported)
            else:
                gone.append(pk)
        start = (tops.get(item_id) or 0) + 1
        added.extend(
            Formulation(item_id=item_id, language=language, text=text, position=start + index)
            for index, text in enumerate(wanted)
        )
        removed.extend(gone)
        item_changed = bool(wanted or gone)
        if intent.response is not None:
            text, answer = answer_text(intent), answers.get(item_id)
            if answer is None:
                new_answers.append(Answer(item_id=item_id, language=language, space=space, text=text))
                item_changed = True
            elif answer.text != text:
                Answer.objects.filter(pk=answer.pk).update(text=text)
                item_changed = True
        report.intents.add(False, item_changed)
        report.examples_added += len(wanted)
        report.examples_removed += len(gone)
        changed = changed or item_changed
    if removed:
        Formulation.objects.filter(pk__in=removed).delete()
    Formulation.objects.bulk_create(added)
    Answer.objects.bulk_create(new_answers)
    return changed


def answer_text(intent: Intent) -> str:
    """The response's text as an answer; without one, a placeholder the editor sees (the item is a draft)."""
    if intent.response:
        return answer_html(intent.response)
    return html.escape(PLACEHOLDER.format(name=intent.name))


def answer_html(text: str) -> str:
    """A Rasa response (plain text) as an answer (HTML): escaped, its line breaks kept."""
    return "<br>".join(html.escape(line, quote=False) for line in text.strip().splitlines())
