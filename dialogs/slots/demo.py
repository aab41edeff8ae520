"""The demo bot's slot filling (knowledge/demo/content.py SLOT_FILLING): its slot items, the items
that need them, and the bot's "no" matching group preference."""

from knowledge.models import KnowledgeItem, MatchingGroup
from preferences.services import Owner, set_preference

from .flow import NO_GROUP_PREFERENCE


def seed_demo_slots(bot, slot_filling: dict, no_group: str) -> None:
    for label, spec in slot_filling.items():
        item = KnowledgeItem.objects.get(bot=bot, label=label)
        slots = [
            KnowledgeItem.objects.create(
                bot=bot,
                kind=KnowledgeItem.Kind.SLOT,
                status=KnowledgeItem.Status.PUBLISHED,
                label=slot["label"],
                tag=item.tag,
                position=item.position,
                slot_variable=slot["variable"],
                slot_type=slot["type"],
                slot_values=slot.get("values", []),
                slot_question=slot["question"],
                slot_invalid=slot.get("invalid", {}),
            )
            for slot in spec["slots"]
        ]
        item.slots = [slot.pk for slot in slots]
        item.slot_intro = spec.get("intro", {})
        item.save(update_fields=["slots", "slot_intro"])
    group = MatchingGroup.objects.get(bot=bot, name=no_group)
    set_preference(Owner(bot=bot), NO_GROUP_PREFERENCE, str(group.uuid), via="demo")
