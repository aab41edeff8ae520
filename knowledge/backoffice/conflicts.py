"""The conflict warning: a formulation just saved that another item of the bot matches better, by the
bot's own matcher: asked exactly that, the bot gives the other item; or, without this formulation, the
other item was the bot's direct answer to it (it already answers this question)."""

from dataclasses import dataclass, replace

import numpy as np

from bots.models import Bot
from knowledge import matching
from knowledge.matching import embeddings
from knowledge.snapshot import snapshot_for

# How many items are ranked to find this item's own score beside the other's.
RANKED = 10
# An item's formulation this close to the text (1.0: the same words) shares the question with this item.
NEAR = 0.8
# A bot this large is not re-indexed without the formulation on a save (the first check still runs).
SHADOW_MAX_FORMULATIONS = 20_000

WINS = "wins"  # the bot, as it now is, gives the other item for this text
ANSWERS = "answers"  # without this formulation, the bot answered the text directly with the other item


@dataclass(frozen=True)
class Conflict:
    kind: str
    language: str
    text: str
    other_item_id: int
    other_score: float
    other_formulation: str
    own_score: float


def conflicts(bot_id: int, item_id: int, formulations: list[tuple[int, str, str]]) -> list[Conflict]:
    """For the (id, language, text) formulations of item `item_id` just saved, the other items that win
    them. Matched as the test bot matches (drafts included, disabled items never, default space), on the
    committed knowledge: the snapshot the chat itself uses next."""
    bot = Bot.objects.get(pk=bot_id)  # fresh: its knowledge version counts the edit just saved
    snapshot = snapshot_for(bot)
    found = []
    for language in sorted({language for _, language, _ in formulations}):
        if language not in snapshot.languages:
            continue
        mine = [(fid, text) for fid, lang, text in formulations if lang == language and text.strip()]
        matcher = snapshot.matcher(language)
        allowed = set(snapshot.allowed_items(language, snapshot.default_space_id, True)) | {item_id}
        shadow = None
        for _fid, text in mine:
            conflict = _wins(matcher, allowed, item_id, language, text)
            if conflict is None:
                shadow = shadow or _without(matcher, {f for f, _ in mine}, snapshot.groups)
                conflict = _answered_before(matcher, shadow, allowed, item_id, language, text)
            if conflict is not None:
                found.append(conflict)
    return found


def _wins(matcher, allowed, item_id, language, text) -> Conflict | None:
    ranked = matcher.rank(text, allowed=allowed, k=RANKED)
    if not ranked or ranked[0].item_id == item_id:
        return None
    own = next((c.score for c in ranked if c.item_id == item_id), 0.0)
    best = ranked[0]
    return Conflict(WINS, language, text, best.item_id, best.score, best.formulation_text, own)


def _answered_before(matcher, shadow, allowed, item_id, language, text) -> Conflict | None:
    """The other item the bot answered `text` with directly before these formulations existed, and that
    still shares the question: the bot would still offer it (a rewording at least), or one of its
    formulations is nearly the text. An item that answered only for want of a better one is no conflict."""
    if shadow is None:
        return None
    before = shadow.rank(text, allowed=allowed, k=RANKED)
    if not before or before[0].item_id == item_id or before[0].score < shadow.thresholds.direct:
        return None
    best = before[0]
    now = {c.item_id: c.score for c in matcher.rank(text, allowed=allowed, k=RANKED)}
    if now.get(best.item_id, 0.0) < matcher.thresholds.reword and _similarity(matcher, text, best.item_id) < NEAR:
        return None
    return Conflict(ANSWERS, language, text, best.item_id, best.score, best.formulation_text, now.get(item_id, 0.0))


def _similarity(matcher, text: str, item_id: int) -> float:
    """How close `text` is to the item's nearest formulation, in itself (not shared among the items)."""
    index = int(np.searchsorted(matcher.item_ids, item_id))
    if index >= len(matcher.item_ids) or int(matcher.item_ids[index]) != item_id:
        return 0.0
    return float(matcher.components(text)["similarity"][index])


def _without(matcher, formulation_ids: set[int], groups) -> "matching.Matcher | None":
    """The bot's index for this language without these formulations, weighed as the bot's (its stored
    vectors reused, no per-bot calibration, the closed-form classifier: a save must not train for long)."""
    if matcher.size > SHADOW_MAX_FORMULATIONS:
        return None
    rest = []
    for index, entry in enumerate(matcher.entries):
        if entry.id in formulation_ids:
            continue
        vector = embeddings.to_bytes(matcher.vectors[index]) if matcher.vectors is not None else None
        rest.append(replace(entry, vector=vector))
    if not rest:
        return None
    config = replace(
        matcher.config,
        calibrate=False,
        refine_classifier=False,
        fusion_weights=dict(matcher.fusion.weights),
        minilm_weight=matcher.fusion.minilm,
    )
    return matching.Matcher.build(matcher.language, rest, groups, config)
