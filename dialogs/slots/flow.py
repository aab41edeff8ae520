"""The slot-filling flow of a dialog: start it when an item that needs slots is understood, ask each
missing slot in order, capture typed values, re-ask after an invalid one, and ask before leaving it.

Captured values are dialog variables under the slot's variable name (`jour`), which answers show as
`${capture.jour}` or `${jour}` (dialogs/rendering.py). The flow in progress is two more variables:
`slotFilling` (the id of the item that needs the slots) and `slotFillingLeave` (the input that
interrupted it, while the bot asks whether to leave) — flat values, because dialogs/variables.py
merges a talk's changes name by name. Nothing here reads the database except the "no" matching
group at a leave question (one preference read).
"""

from collections.abc import Callable

from django.utils import timezone

from knowledge.matching import normalise
from knowledge.matching.groups import REFERENCE, group_key
from knowledge.models import GlobalSentence, KnowledgeItem, MatchingGroup
from knowledge.sentences import global_sentence
from knowledge.snapshot import SlotInfo, Snapshot
from preferences.services import bot_value

from ..handover import Reply
from ..rendering import substitute_variables
from . import values

FLOW = "slotFilling"
LEAVE = "slotFillingLeave"
UNDERSTOOD = "DMUnderstoodQuestion"
NO_GROUP_PREFERENCE = "bot.no.group.uuid"
# The product names a "no" group only; a visitor who confirms leaving says one of these (or asks
# something else, which leaves too).
YES = frozenset({"oui", "yes", "ok", "okay", "d'accord", "daccord", "bien sur", "ouais", "yep", "sure", "ja", "si"})
K = GlobalSentence.Kind

Answerer = Callable[..., Reply | None]


def in_flow(dialog) -> bool:
    return isinstance((dialog.variables or {}).get(FLOW), int)


def start(snapshot: Snapshot, dialog, item_id: int, text: str) -> Reply | None:
    """An item was understood: when it needs slots, the values in the sentence are captured and the
    first missing one is asked (its introductory sentence first). None when nothing is missing: the
    item's answer is given as usual, with the captured values."""
    needed = _needed(snapshot, item_id)
    if not needed:
        return None
    # What the sentence says wins over a value the dialog already holds (which is not asked again).
    _capture_all(dialog, needed, text, awaited=None, replace=True)
    missing = _first_missing(dialog, needed)
    if missing is None:
        _set_flow(dialog, None)
        return None
    _set_flow(dialog, {"item": item_id})
    intro = _text(snapshot, snapshot.slots[item_id].intro, dialog.language)
    question = _question(snapshot, dialog, missing)
    return _reply(dialog, f"{intro}<hr/>{question}" if intro else question, item_id)


def resume(snapshot: Snapshot, dialog, request, text: str, *, answer_item: Answerer, understand: Answerer) -> Reply:
    """The next input of a dialog in a flow: a value for the awaited slot, an invalid value (asked
    again), or something else (the bot asks whether to leave; "no" stays, anything else leaves)."""
    item_id = dialog.variables[FLOW]
    needed = _needed(snapshot, item_id) if isinstance(item_id, int) else []
    missing = _first_missing(dialog, needed) if needed else None
    if missing is None:
        # The item is gone from the knowledge, or its values arrived some other way (chat/variable).
        _set_flow(dialog, None)
        return (needed and _finish(dialog, item_id, answer_item)) or understand(snapshot, dialog, request, text)
    if not text:
        return understand(snapshot, dialog, request, text)
    interrupted = dialog.variables.get(LEAVE)
    if interrupted is not None:
        if _says_no(snapshot, dialog, text):
            _set_flow(dialog, {"item": item_id})
            return _reply(dialog, _question(snapshot, dialog, missing), missing.id)
        if not _capture_all(dialog, needed, text, awaited=missing):
            # Leaving: "yes" answers the question that interrupted the flow, another question itself.
            _set_flow(dialog, None)
            return understand(snapshot, dialog, request, interrupted if _says_yes(text) else text)
    elif not _capture_all(dialog, needed, text, awaited=missing):
        if missing.type != KnowledgeItem.SlotType.TEXT and _other_question(snapshot, dialog, text, item_id):
            _set_flow(dialog, {"item": item_id, "leave": text})
            return _reply(dialog, global_sentence(snapshot.sentences, dialog.language, K.SLOT_LEAVE_CONFIRM), item_id)
        invalid = _text(snapshot, missing.invalid, dialog.language) or global_sentence(
            snapshot.sentences, dialog.language, K.SLOT_INVALID
        )
        return _reply(dialog, f"{invalid} {_question(snapshot, dialog, missing)}", missing.id)
    following = _first_missing(dialog, needed)
    if following is not None:
        _set_flow(dialog, {"item": item_id})
        return _reply(dialog, _question(snapshot, dialog, following), following.id)
    _set_flow(dialog, None)
    return _finish(dialog, item_id, answer_item) or understand(snapshot, dialog, request, text)


def _finish(dialog, item_id: int, answer_item: Answerer) -> Reply | None:
    dialog.misunderstood_streak = 0
    return answer_item(item_id)


def _needed(snapshot: Snapshot, item_id: int) -> list[SlotInfo]:
    """The slots an item needs, in order; a slot item understood on its own needs itself."""
    info = snapshot.slots.get(item_id)
    if info is None:
        return []
    if info.kind == KnowledgeItem.Kind.SLOT:
        return [info] if info.variable and info.type else []
    found = [snapshot.slots.get(slot_id) for slot_id in info.needs]
    return [slot for slot in found if slot is not None and slot.kind == KnowledgeItem.Kind.SLOT and slot.variable]


def _first_missing(dialog, needed: list[SlotInfo]) -> SlotInfo | None:
    captured = dialog.variables or {}
    return next((slot for slot in needed if captured.get(slot.variable) in (None, "")), None)


def _capture_all(dialog, needed: list[SlotInfo], text: str, *, awaited: SlotInfo | None, replace=False) -> bool:
    """Captures the values the text holds for the missing slots (with `replace`, for every slot), the
    most recognisable kinds first, each part of the text used once. Free text only fills the awaited
    slot (the whole input), never from a sentence that says something else. Returns whether the
    awaited slot got its value."""
    today = timezone.localdate()
    captured = dict(dialog.variables or {})
    missing = [slot for slot in needed if replace or captured.get(slot.variable) in (None, "")]
    if awaited is not None and awaited.type == KnowledgeItem.SlotType.TEXT:
        found = values.find(awaited.type, text, today)
        if found:
            captured[awaited.variable] = found[0]
            dialog.variables = captured
        return bool(found)
    remaining = text
    got_awaited = False
    for slot in sorted(missing, key=lambda slot: _rank(slot.type)):
        if slot.type == KnowledgeItem.SlotType.TEXT:
            continue
        found = values.find(slot.type, remaining, today, list(slot.values))
        if found is None:
            continue
        value, (start, end) = found
        captured[slot.variable] = value
        remaining = remaining[:start] + " " * (end - start) + remaining[end:]
        got_awaited = got_awaited or slot is awaited
    dialog.variables = captured
    return got_awaited


def _rank(slot_type: str) -> int:
    return values.ORDER.index(slot_type) if slot_type in values.ORDER else len(values.ORDER)


def _other_question(snapshot: Snapshot, dialog, text: str, item_id: int) -> bool:
    """Whether the input clearly asks something else: matching finds another item than the flow's."""
    space_id = snapshot.space_id(dialog.space)
    space_id = snapshot.default_space_id if space_id is None else space_id
    allowed = snapshot.allowed_items(dialog.language, space_id, dialog.qualification_mode)
    result = snapshot.matcher(dialog.language).match_first(text, [allowed])
    if result.outcome != "direct" or not result.candidates:
        return False
    found = result.candidates[0].item_id
    return found != item_id and snapshot.items[found].kind != KnowledgeItem.Kind.SLOT


def _says_no(snapshot: Snapshot, dialog, text: str) -> bool:
    """The input is a member of the matching group the bot preference bot.no.group.uuid names (its
    nested groups too). Without that preference the bot cannot tell a "no" (product-behaviour §1.6)."""
    group_uuid = (bot_value(dialog.bot, NO_GROUP_PREFERENCE) or "").strip().lower()
    if not group_uuid:
        return False
    names = snapshot.memo(
        ("slot-group-names",),
        lambda: {
            str(uuid): name
            for uuid, name in MatchingGroup.objects.filter(bot_id=snapshot.bot_id).values_list("uuid", "name")
        },
    )
    name = names.get(group_uuid)
    if name is None:
        return False
    members = snapshot.memo(("slot-group-members", name), lambda: _members(snapshot, name))
    return _starts_with_one_of(normalise(text, dialog.language), members)


def _members(snapshot: Snapshot, name: str) -> frozenset[str]:
    """The group's members, normalised, with nested groups' members (cycles end)."""
    groups = {group_key(group.name): group.members for group in snapshot.groups}
    found, seen, waiting = set(), set(), [group_key(name)]
    while waiting:
        key = waiting.pop()
        if key in seen:
            continue
        seen.add(key)
        for member in groups.get(key, ()):
            nested = REFERENCE.fullmatch(member.strip())
            if nested:
                waiting.append(group_key(nested.group(1)))
            elif normalise(member):
                found.add(normalise(member))
    return frozenset(found)


def _says_yes(text: str) -> bool:
    return _starts_with_one_of(normalise(text), YES)


def _starts_with_one_of(said: str, words) -> bool:
    """« non », « non merci », « non, je reste » all say no."""
    return any(said == word or said.startswith(word + " ") for word in words)


def _question(snapshot: Snapshot, dialog, slot: SlotInfo) -> str:
    return _text(snapshot, slot.question, dialog.language)


def _text(snapshot: Snapshot, texts: dict, language: str) -> str:
    """A per-language sentence: the dialog's language, else the bot's default language's."""
    return texts.get(language) or texts.get(snapshot.default_language) or ""


def _set_flow(dialog, state: dict | None):
    variables = dict(dialog.variables or {})
    variables.pop(FLOW, None)
    variables.pop(LEAVE, None)
    if state is not None:
        variables[FLOW] = state["item"]
        if state.get("leave") is not None:
            variables[LEAVE] = state["leave"]
    dialog.variables = variables


def _reply(dialog, text: str, item_id: int) -> Reply:
    """The bot's sentence with the values captured so far (each variable substituted once)."""
    dialog.misunderstood_streak = 0
    return Reply(
        text=substitute_variables(text, dialog.variables or {}), type_response=UNDERSTOOD, knowledge_id=item_id
    )
