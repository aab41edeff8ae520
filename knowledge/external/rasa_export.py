"""A bot's knowledge in one language as Rasa NLU training data: one intent per knowledge item (its
formulations as examples, `{group}` references written as the group's first member) and one synonym per
matching group (its members, nested groups flattened)."""

import hashlib
from dataclasses import dataclass

import yaml

from ..matching.groups import GroupExpander
from ..matching.types import MatchingGroupDef
from ..models import Formulation, KnowledgeItem, MatchingGroup
from . import rasa_format
from .names import intent_names

# Kinds a user's question reaches (KnowledgeItem.matchable); disabled items are out of the bot.
EXPORTED_KINDS = (KnowledgeItem.Kind.QUESTION, KnowledgeItem.Kind.SLOT)


@dataclass(frozen=True)
class NluFile:
    text: str
    intents: int
    examples: int
    synonyms: int

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


class Block(str):
    """A string YAML writes as a literal block (`|`)."""


class NluDumper(yaml.SafeDumper):
    """PyYAML's safe writer; examples as literal blocks (it falls back to quotes when a block cannot
    hold the text), lists indented under their key as Rasa's own files are."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


NluDumper.add_representer(Block, lambda dumper, data: dumper.represent_scalar("tag:yaml.org,2002:str", data, "|"))


def nlu_file(bot, language: str, *, keep_names: bool = True) -> NluFile:
    """The training data of `bot` in `language`. With `keep_names`, items named for the first time keep
    their names (an export); without, nothing is written (the mirror's status comparing contents)."""
    groups = [
        MatchingGroupDef(name=name, members=[str(member) for member in members or []])
        for name, members in MatchingGroup.objects.filter(bot=bot).order_by("name", "id").values_list("name", "members")
    ]
    expander = GroupExpander(groups)
    items = list(
        KnowledgeItem.objects.filter(bot=bot, kind__in=EXPORTED_KINDS)
        .exclude(status=KnowledgeItem.Status.DISABLED)
        .order_by("position", "id")
        .only("id", "label")
    )
    texts: dict[int, list[str]] = {}
    formulations = Formulation.objects.filter(item__in=[item.pk for item in items], language=language)
    for item_id, text in formulations.order_by("position", "id").values_list("item_id", "text"):
        texts.setdefault(item_id, []).append(text)
    items = [item for item in items if texts.get(item.pk)]
    names = intent_names(bot, items, {pk: lines[0] for pk, lines in texts.items()}, keep=keep_names)

    nlu, example_count = [], 0
    for item in items:
        lines = unique_lines(example_line(expander, text) for text in texts[item.pk])
        if lines:
            nlu.append({"intent": names[item.pk], "examples": Block(rasa_format.block(lines))})
            example_count += len(lines)
    intent_count = len(nlu)
    for group in groups:
        members = unique_lines(rasa_format.one_line(member) for member in expander.members(group.name))
        name = rasa_format.one_line(group.name)
        if name and members:
            nlu.append({"synonym": name, "examples": Block(rasa_format.block(members))})
    document = {"version": rasa_format.WRITTEN_VERSION, "nlu": nlu}
    text = yaml.dump(document, Dumper=NluDumper, allow_unicode=True, sort_keys=False, width=100_000)
    return NluFile(text=text, intents=intent_count, examples=example_count, synonyms=len(nlu) - intent_count)


def example_line(expander: GroupExpander, formulation: str) -> str:
    """A formulation as one example: its first variant (each `{group}` as the group's first member)."""
    return rasa_format.example_text(expander.expand(formulation)[0])


def unique_lines(lines) -> list[str]:
    """Non-empty lines, each once, in order (Rasa warns about an example given twice)."""
    return list(dict.fromkeys(line for line in lines if line))
