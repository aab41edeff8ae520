"""What the learning page shows for one bot: its misunderstood and reworded inputs, and the questions operators
answered without a suggested answer, grouped by similarity, most asked first, each group with its examples
and the items the matcher finds closest."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from knowledge.models import KnowledgeItem
from knowledge.snapshot import snapshot_for

from . import actions, closest, grouping, inputs

EXAMPLES = 6
GROUPS_PER_PAGE = 25


@dataclass
class Suggestion:
    item_id: int
    label: str
    status: str
    score: float
    formulation: str


@dataclass
class Group:
    key: str  # stable while its leading input stays: the page's anchor
    language: str
    leader: inputs.Input
    members: list[inputs.Input]
    suggestions: list[Suggestion] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(m.count for m in self.members)

    @property
    def misunderstood(self) -> int:
        return sum(m.misunderstood for m in self.members)

    @property
    def reworded(self) -> int:
        return sum(m.reworded for m in self.members)

    @property
    def by_operator(self) -> int:
        return sum(m.by_operator for m in self.members)

    @property
    def examples(self) -> list[inputs.Input]:
        return self.members[:EXAMPLES]

    @property
    def more(self) -> int:
        return max(len(self.members) - EXAMPLES, 0)

    @property
    def texts(self) -> list[str]:
        """What ignoring the group stores (bounded: a form posts them; the rest join them by similarity)."""
        return [m.key for m in self.members[: actions.MAX_GROUP_TEXTS]]

    @property
    def last_seen(self):
        return max(m.last_seen for m in self.members)


@dataclass
class Learning:
    groups: list[Group]  # every group, most asked first
    shown: list[Group]  # this page's groups, with their suggestions
    read: int
    capped: bool
    hidden: int
    since: object
    mode: dict[str, str]  # language -> "embeddings" or "lexical"
    build_ms: float = 0.0

    @property
    def inputs(self) -> int:
        return sum(g.count for g in self.groups)


def build(bot, page: int = 1, language: str = "", source: str = "") -> Learning:
    """Group the bot's recent inputs (optionally of one language; with source="operators", only the questions
    operators answered without a suggestion) and rank the closest items of the page's groups only: the cost is
    one encoding per distinct input, one product, and a ranking per group shown."""
    started = time.perf_counter()
    snapshot = snapshot_for(bot)
    found = inputs.recent(bot, inputs.known_texts(snapshot), source=source)
    groups: list[Group] = []
    leader_vectors: dict[str, np.ndarray | None] = {}
    modes: dict[str, str] = {}
    hidden = found.hidden
    for lang, entries in sorted(found.by_language.items()):
        if language and lang != language:
            continue
        matcher = snapshot.matcher(snapshot.language(lang))
        modes[lang] = grouping.mode_of(matcher)
        # The ignored groups' inputs lead first: what joins them stays hidden, so a group does not come back
        # in new words close to the ones ignored.
        seeds = [inputs.Input(key=t, text=t, language=lang, ignored=True) for t in found.ignored.get(lang, [])]
        entries = seeds + entries
        texts = [e.text for e in entries]
        model_vectors = grouping.encode(matcher, texts) if modes[lang] == "embeddings" else None
        vectors = grouping.representation(texts, matcher.language, model_vectors)
        asked = sorted(
            range(len(seeds), len(entries)), key=lambda i: (-entries[i].count, -entries[i].last_seen.timestamp())
        )
        order = list(range(len(seeds))) + asked
        leaders = grouping.cluster(vectors, order, grouping.SIMILAR[modes[lang]])
        members: dict[int, list[inputs.Input]] = {}
        for i in asked:  # most asked first inside a group too
            members.setdefault(leaders[i], []).append(entries[i])
        for lead, group_members in members.items():
            if entries[lead].ignored:
                hidden += sum(m.count for m in group_members)
                continue
            key = hashlib.sha1(f"{lang}:{entries[lead].key}".encode()).hexdigest()[:12]
            groups.append(Group(key=key, language=lang, leader=entries[lead], members=group_members))
            leader_vectors[key] = model_vectors[lead] if model_vectors is not None else None
    groups.sort(key=lambda g: (-g.count, -g.last_seen.timestamp()))
    start = (max(page, 1) - 1) * GROUPS_PER_PAGE
    shown = groups[start : start + GROUPS_PER_PAGE]
    _suggest(snapshot, shown, leader_vectors)
    return Learning(
        groups=groups,
        shown=shown,
        read=found.read,
        capped=found.capped,
        hidden=hidden,
        since=found.since,
        mode=modes,
        build_ms=(time.perf_counter() - started) * 1000,
    )


def _suggest(snapshot, groups: list[Group], vectors: dict) -> None:
    ranked = {}
    for group in groups:
        matcher = snapshot.matcher(snapshot.language(group.language))
        best: dict[int, object] = {}
        # The leading input first; when it shares nothing with any item, its examples in turn.
        for member in group.examples:
            vector = vectors.get(group.key) if member is group.leader else None
            for candidate in closest.closest_items(snapshot, matcher, matcher.language, member.text, vector):
                if candidate.item_id not in best or candidate.score > best[candidate.item_id].score:
                    best[candidate.item_id] = candidate
            if best and member is group.leader:
                break
        ranked[group.key] = sorted(best.values(), key=lambda c: -c.score)[: closest.CLOSEST]
    ids = {c.item_id for candidates in ranked.values() for c in candidates}
    items = {i.pk: i for i in KnowledgeItem.objects.filter(pk__in=ids).only("id", "label", "status")}
    for group in groups:
        group.suggestions = [
            Suggestion(
                item_id=c.item_id,
                label=str(items[c.item_id]),
                status=items[c.item_id].get_status_display(),
                score=c.score,
                formulation=c.formulation_text,
            )
            for c in ranked[group.key]
            if c.item_id in items
        ]
