"""A bot's knowledge as each worker process keeps it in memory: items, spaces, languages, global
sentences and one matcher per language, rebuilt when the bot's knowledge version changes.

Every knowledge write bumps `Bot.knowledge_version` (signals.py); the version arrives with the bot
on every request, so a worker sees an edit on its next request without a restart or an extra query.
"""

import logging
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Q

from bots.models import DEFAULT_SPACE_ALIASES, Bot, language_code

from . import index_files, matching
from .answers import Branch, answers_for, branches_of
from .models import Answer, Formulation, KnowledgeItem, MatchingGroup
from .vectors import budget

log = logging.getLogger(__name__)

MATCHABLE = (KnowledgeItem.Kind.QUESTION, KnowledgeItem.Kind.SLOT)


class KnowledgeChanged(Exception):
    """Answers a snapshot knows of are no longer stored: the knowledge changed after it was read. The talk
    answers again from the bot's current knowledge (dialogs/engine.py)."""

    def __init__(self, bot_id: int, version: int):
        super().__init__(f"The knowledge of bot {bot_id} changed after version {version} was read.")


@dataclass(frozen=True)
class ItemInfo:
    id: int
    kind: str
    status: str
    parent_id: int | None
    direct_access: bool
    tag_id: int | None
    # language → ids of the spaces the item has an answer in
    answer_spaces: dict[str, frozenset[int]]
    has_children: bool = False
    label: str = ""


@dataclass(frozen=True)
class ComplementRule:
    """A complementary answer: where its text goes, what it targets (the whole knowledge base, tags
    with their sub-tags, items), how often and under which conditions it is used (dialogs/complements.py)."""

    id: int
    position: str
    applies_to_all: bool
    tags: frozenset[int]
    items: frozenset[int]
    frequency: str = KnowledgeItem.Frequency.ALWAYS
    n: int = 1
    conditions: tuple = ()


@dataclass(frozen=True)
class SlotInfo:
    """Slot filling (dialogs/slots/): a slot item's variable, value type, allowed values and per-language
    question and invalid-value sentence; for an item that needs slots, their ids in order and its
    per-language introductory sentence."""

    id: int
    kind: str
    variable: str = ""
    type: str = ""
    values: tuple[str, ...] = ()
    question: dict = field(default_factory=dict)
    invalid: dict = field(default_factory=dict)
    needs: tuple[int, ...] = ()
    intro: dict = field(default_factory=dict)


@dataclass
class Snapshot:
    bot_id: int
    version: int
    languages: list[str]
    default_language: str
    spaces: dict[str, int]  # lower-cased name → space id
    space_names: dict[int, str]
    default_space_id: int
    items: dict[int, ItemInfo]
    sentences: dict[tuple[str, str], str]  # (language, kind) → text
    # language → [(formulation id, item id, text, rewordable)] in knowledge order
    formulations: dict[str, list[tuple[int, int, str, bool]]]
    groups: list[matching.MatchingGroupDef]
    children: dict[int, list[int]] = field(default_factory=dict)
    tag_parents: dict[int, int | None] = field(default_factory=dict)
    tag_names: dict[int, str] = field(default_factory=dict)
    complements: list[ComplementRule] = field(default_factory=list)
    # items that are slots or need slots (dialogs/slots/), by id
    slots: dict[int, SlotInfo] = field(default_factory=dict)
    # answer branches by (item id, language, space id), in priority order (knowledge/conditions.py chooses)
    branches: dict[tuple[int, str, int], tuple[Branch, ...]] = field(default_factory=dict)
    _allowed: dict[tuple, frozenset[int]] = field(default_factory=dict)
    _memo: dict = field(default_factory=dict)
    _matchers: dict[str, "matching.Matcher"] = field(default_factory=dict)
    # languages whose matcher is lexical only until the background job has stored the vectors
    _provisional: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = 0.0  # time.monotonic() of its last use: the memory budget drops the least recent
    bot_uuid: str = ""  # names its stored files (index_files.py)

    # What a stored snapshot keeps (index_files.py): the knowledge, not this process's matchers, caches or lock.
    _PROCESS_ONLY = ("_allowed", "_memo", "_matchers", "_provisional", "_lock", "last_used")

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self._PROCESS_ONLY}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._allowed, self._memo, self._matchers, self._provisional = {}, {}, {}, set()
        self._lock = threading.Lock()
        self.last_used = 0.0

    def spoken_language(self, requested: str | None) -> str:
        """The ISO code of a requested language (a code or a name) if the bot speaks it, else ""."""
        code = language_code(requested)
        return code if code in self.languages else ""

    def language(self, requested: str | None) -> str:
        """The requested language if the bot speaks it, else the bot's default language."""
        return self.spoken_language(requested) or self.default_language

    def space_id(self, name: str | None) -> int | None:
        """The space of that name, any case; Default/Defaut/empty mean the default space."""
        name = (name or "").strip().lower()
        if name in DEFAULT_SPACE_ALIASES:
            return self.default_space_id
        return self.spaces.get(name)

    def reachable(self, item: ItemInfo, language: str, space_id: int, qualification: bool) -> bool:
        """Disabled never; drafts only in qualification mode; only where an answer exists for the
        space or for the default space."""
        if item.status == KnowledgeItem.Status.DISABLED:
            return False
        if item.status != KnowledgeItem.Status.PUBLISHED and not qualification:
            return False
        spaces = item.answer_spaces.get(language, frozenset())
        return space_id in spaces or self.default_space_id in spaces

    def allowed_items(self, language: str, space_id: int, qualification: bool) -> frozenset[int]:
        """Items a question may reach from anywhere: matchable, reachable, and either a root or a
        decision-tree branch with direct access. Cached: the snapshot never changes."""
        key = (language, space_id, qualification)
        found = self._allowed.get(key)
        if found is None:
            found = frozenset(
                item.id
                for item in self.items.values()
                if item.kind in MATCHABLE
                and (item.parent_id is None or item.direct_access)
                and self.reachable(item, language, space_id, qualification)
            )
            self._allowed[key] = found
        return found

    def follow_up_items(self, node_id: int, language: str, space_id: int, qualification: bool) -> frozenset[int]:
        """The children of a decision-tree node, matched first right after its answer."""
        return frozenset(
            child
            for child in self.children.get(node_id, ())
            if self.items[child].kind in MATCHABLE
            and self.reachable(self.items[child], language, space_id, qualification)
        )

    def tag_lineage(self, tag_id: int | None) -> set[int]:
        found = set()
        while tag_id is not None and tag_id not in found:
            found.add(tag_id)
            tag_id = self.tag_parents.get(tag_id)
        return found

    def tag_path(self, tag_id: int | None) -> str:
        names, seen = [], set()
        while tag_id is not None and tag_id not in seen:
            seen.add(tag_id)
            names.append(self.tag_names.get(tag_id, ""))
            tag_id = self.tag_parents.get(tag_id)
        return "/".join(reversed(names))

    def complements_for(self, item_id: int, language: str, space_id: int, qualification: bool) -> list[ComplementRule]:
        """The complementary answers that target an item (the whole knowledge base, one of its tags or
        their parents, or the item itself) and are reachable here, in knowledge order. Their
        conditions and frequency depend on the dialog: dialogs/complements.py decides."""
        if not self.complements:
            return []
        key = ("complements", item_id, language, space_id, qualification)
        found = self._memo.get(key)
        if found is None:
            lineage = self.tag_lineage(self.items[item_id].tag_id)
            found = [
                rule
                for rule in self.complements
                if rule.id != item_id
                and (rule.applies_to_all or rule.tags & lineage or item_id in rule.items)
                and self.reachable(self.items[rule.id], language, space_id, qualification)
            ]
            self._memo[key] = found
        return found

    def title(self, item_id: int, language: str) -> str:
        """What an item is called where it was answered (interactions keep it, analytics show it): its
        label, else its first formulation in the language, else in any language."""
        item = self.items.get(item_id)
        if item is None:
            return ""
        if item.label:
            return item.label
        for wanted in (language, *self.formulations):
            first = self.memo(("first formulations", wanted), lambda wanted=wanted: self._first_formulations(wanted))
            if item_id in first:
                return first[item_id]
        return ""

    def _first_formulations(self, language: str) -> dict[int, str]:
        found: dict[int, str] = {}
        for _, item_id, text, _ in self.formulations.get(language, ()):
            found.setdefault(item_id, text)
        return found

    def memo(self, key, factory):
        """A value derived from this snapshot, computed once (the snapshot never changes)."""
        if key not in self._memo:
            self._memo[key] = factory()
        return self._memo[key]

    def answers(self, item_ids: list[int], language: str, space_id: int) -> dict[int, Answer]:
        """Each item's answer for the language and space (answers_for), read once per knowledge version:
        answers are knowledge, and any edit to them makes a new snapshot. Shared: never modify them."""
        key = ("answers", tuple(item_ids), language, space_id)
        found = self._memo.get(key)
        if found is None:
            found = answers_for(item_ids, language, space_id, self.default_space_id)
            if any(item_id not in found and self._answered(item_id, language, space_id) for item_id in item_ids):
                # Gone since this snapshot was read (an import, a delete committed meanwhile).
                raise KnowledgeChanged(self.bot_id, self.version)
            self._memo[key] = found
        return found

    def _answered(self, item_id: int, language: str, space_id: int) -> bool:
        """Whether this snapshot knows an answer of the item for the language, in the space or the default one."""
        item = self.items.get(item_id)
        spaces = item.answer_spaces.get(language, frozenset()) if item else frozenset()
        return space_id in spaces or self.default_space_id in spaces

    def matcher(self, language: str) -> "matching.Matcher":
        found = self._matchers.get(language)
        if found is None:
            with self._lock:
                found = self._matchers.get(language)
                if found is None:
                    found = self._build_matcher(language)
                    self._matchers[language] = found
            budget.enforce(list(_cache.values()), keep=self)
        return found

    @property
    def provisional(self) -> bool:
        """Whether a matcher of this snapshot is lexical for want of vectors still being computed."""
        return bool(self._provisional)

    def upgrade(self) -> None:
        """Put the embeddings' matcher in place of each provisional lexical one, now that the vectors are
        stored (called by the vector worker: the lexical matcher answers meanwhile, nobody waits)."""
        for language in list(self._provisional):
            built = self._build_matcher(language)
            with self._lock:
                self._matchers[language] = built
        budget.enforce(list(_cache.values()), keep=self)

    def drop_indexes(self) -> None:
        """Forget the matchers (the memory budget's choice): the next talk rebuilds them from stored vectors."""
        with self._lock:
            self._matchers = {}
            self._provisional.clear()

    def index_bytes(self) -> int:
        return sum(budget.index_bytes(m) for m in list(self._matchers.values()))

    def _build_matcher(self, language: str) -> "matching.Matcher":
        """The language's matcher: read from its stored files when a process of the machine built it for this
        knowledge version (index_files.py), else built here from the stored vectors, and stored."""
        wanted = settings.MATCHING_EMBEDDINGS and matching.embeddings_available()
        mode = "embeddings" if wanted else "lexical"
        found = self._stored_matcher(language, mode)
        if found is not None:
            self._provisional.discard(language)
            return found
        with index_files.building(self.bot_uuid, self.version, f"{language}-{mode}"):
            # Another process may have built it while this one waited for the lock.
            found = self._stored_matcher(language, mode) or self._build_from_database(language, wanted)
        if found.config.use_embeddings:
            self._provisional.discard(language)
        return found

    def _stored_matcher(self, language: str, mode: str) -> "matching.Matcher | None":
        found = index_files.read(self.bot_uuid, self.version, f"{language}-{mode}")
        return found if isinstance(found, matching.Matcher) else None

    def _build_from_database(self, language: str, use_embeddings: bool) -> "matching.Matcher":
        started = time.perf_counter()
        rows = [
            (fid, item_id, text)
            for fid, item_id, text, _ in self.formulations.get(language, [])
            if self.items[item_id].kind in MATCHABLE
        ]
        config = matching.MatcherConfig(use_embeddings=use_embeddings)
        vectors: dict[int, bytes] = {}
        if config.use_embeddings:
            vectors, missing = _stored_vectors(rows, language)
            if len(missing) > settings.VECTORS_SYNC_LIMIT:
                # Too many to compute inside a talk (a large import): the lexical matcher answers until the
                # background job has stored them (knowledge/vectors/), then upgrade() takes over.
                self._provisional.add(language)
                _vectors_wanted(self.bot_id)
                stored = self._stored_matcher(language, "lexical")
                if stored is not None:
                    return stored
                config = matching.MatcherConfig(use_embeddings=False)
            elif missing:
                vectors.update(_compute_vectors(missing, language))
        entries = [
            matching.FormulationEntry(id=fid, item_id=item_id, text=text, vector=vectors.get(fid))
            for fid, item_id, text in rows
        ]
        del vectors
        built = matching.Matcher.build(language=language, entries=entries, groups=self.groups, config=config)
        log.info(
            "Matching index of bot %s (%s, version %s, %s): %d formulations in %.0f ms",
            self.bot_id,
            language,
            self.version,
            config.mode,
            len(entries),
            (time.perf_counter() - started) * 1000,
        )
        index_files.write_when_ready(self.bot_uuid, self.version, f"{language}-{built.config.mode}", built)
        return built


def _stored_vectors(rows: list[tuple[int, int, str]], language: str) -> tuple[dict[int, bytes], list[tuple[int, str]]]:
    """The formulations' stored vectors the matcher can use, and the (id, text) of those without one."""
    found: dict[int, bytes] = {}
    ids = [fid for fid, _, _ in rows]
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        for fid, vector in Formulation.objects.filter(pk__in=chunk, vector__isnull=False).values_list("id", "vector"):
            vector = bytes(vector)
            if matching.embeddings.usable(vector, language):
                found[fid] = vector
    return found, [(fid, text) for fid, _, text in rows if fid not in found]


def _compute_vectors(missing: list[tuple[int, str]], language: str) -> dict[int, bytes]:
    """A few vectors computed now (an edit, a small import) and stored, so that no other build computes them."""
    texts = sorted({text for _, text in missing})
    computed = matching.embed_formulations(texts, language) or []
    if len(computed) != len(texts):
        return {}
    of_text = dict(zip(texts, computed, strict=True))
    updates = [Formulation(id=fid, vector=of_text[text]) for fid, text in missing]
    Formulation.objects.bulk_update(updates, ["vector"], batch_size=1000)
    return {update.id: update.vector for update in updates}


def _vectors_wanted(bot_id: int) -> None:
    """Make sure a job computes the bot's vectors, and wake this process's worker for it."""
    from .vectors import jobs, worker

    try:
        jobs.ensure(bot_id)
    except DatabaseError:  # the talk still answers lexically; the next build asks again
        log.exception("Could not schedule the vectors of bot %s", bot_id)
        return
    worker.wake()


def warm(bot_id: int) -> None:
    """Build the bot's matchers in this process now: the vector worker does it before computing a bot's
    vectors, so that the first talk after an import finds the lexical index ready (building it reads
    every formulation's words: seconds at 15,000 formulations)."""
    bot = Bot.objects.filter(pk=bot_id).first()
    if bot is None:
        return
    found = snapshot_for(bot)
    for language in found.formulations:
        if language in found.languages:
            found.matcher(language)


def upgrade_ready() -> int:
    """Upgrade the cached snapshots whose vectors are now all stored (one query); how many were upgraded."""
    from .vectors import jobs

    waiting = {bot_id: snap for bot_id, snap in list(_cache.items()) if snap.provisional}
    if not waiting:
        return 0
    ready = jobs.ready_among(waiting)
    for bot_id in ready:
        waiting[bot_id].upgrade()
    return len(ready)


_cache: dict[int, Snapshot] = {}
_cache_lock = threading.Lock()


def snapshot_for(bot: Bot) -> Snapshot:
    """The bot's knowledge snapshot for its current knowledge version (built at most once per version)."""
    found = _cache.get(bot.pk)
    if not _current(found, bot):
        with _cache_lock:
            found = _cache.get(bot.pk)
            if not _current(found, bot):
                found = _load(bot)
                _cache[bot.pk] = found
    found.last_used = time.monotonic()
    return found


def _current(found: Snapshot | None, bot: Bot) -> bool:
    """Whether a snapshot holds the bot's knowledge as it is now: its version, and its default language (a bot
    setting that a knowledge write does not version)."""
    return (
        found is not None and found.version == bot.knowledge_version and found.default_language == bot.default_language
    )


def _complements(bot: Bot, complement_tags: dict[int, set[int]]) -> list[ComplementRule]:
    rows = list(
        KnowledgeItem.objects.filter(bot=bot, kind=KnowledgeItem.Kind.COMPLEMENTARY).values_list(
            "id",
            "complement_position",
            "complement_all",
            "complement_frequency",
            "complement_n",
            "complement_conditions",
        )
    )
    if not rows:
        return []
    targets: dict[int, set[int]] = {}
    for complement_id, item_id in KnowledgeItem.complement_items.through.objects.filter(
        from_knowledgeitem__bot=bot
    ).values_list("from_knowledgeitem_id", "to_knowledgeitem_id"):
        targets.setdefault(complement_id, set()).add(item_id)
    return [
        ComplementRule(
            id=item_id,
            position=position or KnowledgeItem.Position.AFTER,
            applies_to_all=applies_to_all,
            tags=frozenset(complement_tags.get(item_id, ())),
            items=frozenset(targets.get(item_id, ())),
            frequency=frequency or KnowledgeItem.Frequency.ALWAYS,
            n=max(n or 1, 1),
            conditions=tuple(conditions) if isinstance(conditions, list) else (),
        )
        for item_id, position, applies_to_all, frequency, n, conditions in rows
    ]


# Reads of a snapshot that an import committing between two of its queries made torn, before one is kept.
LOAD_ATTEMPTS = 3


def current_version(bot: Bot) -> int:
    """The bot's knowledge version as stored now (one query)."""
    return Bot.objects.filter(pk=bot.pk).values_list("knowledge_version", flat=True).first() or 0


def _load(bot: Bot) -> Snapshot:
    """The bot's knowledge as one version: stored by a process of the machine (index_files.py), else read
    from the database and stored. Its queries run one after the other, so a knowledge write that commits
    meanwhile (it bumps the version in the same transaction) makes them read again."""
    version = current_version(bot)
    found = index_files.read(str(bot.uuid), version, "snapshot")
    if (
        isinstance(found, Snapshot)
        and found.default_language == bot.default_language
        and found.bot_id == bot.pk
        and found.version == version
    ):
        return found
    for _ in range(LOAD_ATTEMPTS):
        found = _read(bot, version)
        now = current_version(bot)
        if now == version:
            index_files.write(found.bot_uuid, version, "snapshot", found)
            return found
        version = now
    return found


def _read(bot: Bot, version: int) -> Snapshot:
    languages = list(bot.languages.filter(available=True).values_list("code", flat=True)) or [bot.default_language]
    default_space = bot.default_space()
    spaces = {name.lower(): sid for sid, name in bot.spaces.values_list("id", "name")}
    space_names = dict(bot.spaces.values_list("id", "name"))

    answer_spaces: dict[int, dict[str, set[int]]] = {}
    for item_id, language, space_id in Answer.objects.filter(item__bot=bot).values_list(
        "item_id", "language", "space_id"
    ):
        answer_spaces.setdefault(item_id, {}).setdefault(language, set()).add(space_id)
    # Items answered in the same languages and spaces share one mapping: most items of a bot do, and a stored
    # snapshot then holds (and reads back) a few mappings instead of one per item.
    shared: dict[tuple, dict[str, frozenset[int]]] = {}

    def spaces_of(item_id: int) -> dict[str, frozenset[int]]:
        spaces = {lang: frozenset(ids) for lang, ids in answer_spaces.get(item_id, {}).items()}
        return shared.setdefault(tuple(sorted((lang, tuple(sorted(ids))) for lang, ids in spaces.items())), spaces)

    rows = list(
        KnowledgeItem.objects.filter(bot=bot).values_list(
            "id", "kind", "status", "parent_id", "direct_access", "tag_id", "label"
        )
    )
    parents = {parent_id for _, _, _, parent_id, _, _, _ in rows if parent_id}
    items = {
        item_id: ItemInfo(
            id=item_id,
            kind=kind,
            status=status,
            parent_id=parent_id,
            direct_access=direct_access,
            tag_id=tag_id,
            answer_spaces=spaces_of(item_id),
            has_children=item_id in parents,
            label=label,
        )
        for item_id, kind, status, parent_id, direct_access, tag_id, label in rows
    }
    formulations: dict[str, list[tuple[int, int, str, bool]]] = {}
    for fid, item_id, language, text, rewordable in (
        Formulation.objects.filter(item__bot=bot)
        .values_list("id", "item_id", "language", "text", "rewordable")
        .order_by("item__position", "item_id", "position", "id")
    ):
        formulations.setdefault(language, []).append((fid, item_id, text, rewordable))
    sentences = {
        (language, kind): text for language, kind, text in bot.global_sentences.values_list("language", "kind", "text")
    }
    children: dict[int, list[int]] = {}
    for item_id, _, _, parent_id, _, _, _ in rows:
        if parent_id:
            children.setdefault(parent_id, []).append(item_id)
    tags = list(bot.tags.values_list("id", "parent_id", "name"))
    complement_tags: dict[int, set[int]] = {}
    for item_id, tag_id in KnowledgeItem.complement_tags.through.objects.filter(knowledgeitem__bot=bot).values_list(
        "knowledgeitem_id", "tag_id"
    ):
        complement_tags.setdefault(item_id, set()).add(tag_id)
    complements = _complements(bot, complement_tags)
    groups = [
        matching.MatchingGroupDef(name=name, members=list(members or []))
        for name, members in MatchingGroup.objects.filter(bot=bot).values_list("name", "members")
    ]
    return Snapshot(
        bot_id=bot.pk,
        version=version,
        languages=languages,
        default_language=bot.default_language,
        spaces=spaces,
        space_names=space_names,
        default_space_id=default_space.pk,
        items=items,
        sentences=sentences,
        formulations=formulations,
        groups=groups,
        children=children,
        tag_parents={tag_id: parent_id for tag_id, parent_id, _ in tags},
        tag_names={tag_id: name for tag_id, _, name in tags},
        complements=complements,
        slots=_slots(bot),
        branches=branches_of(bot),
        bot_uuid=str(bot.uuid),
    )


SLOT_COLUMNS = ("id", "kind", "slot_variable", "slot_type", "slot_values", "slot_question", "slot_invalid")
SLOT_COLUMNS += ("slots", "slot_intro")


def _slots(bot: Bot) -> dict[int, SlotInfo]:
    """Slot items and the items that need slots (one query, once per knowledge version)."""

    def texts(value) -> dict:
        return {k: str(v) for k, v in value.items() if v} if isinstance(value, dict) else {}

    rows = (
        KnowledgeItem.objects.filter(bot=bot)
        .filter(Q(kind=KnowledgeItem.Kind.SLOT) | ~Q(slots=[]))
        .values_list(*SLOT_COLUMNS)
    )
    return {
        item_id: SlotInfo(
            id=item_id,
            kind=kind,
            variable=variable,
            type=slot_type,
            values=tuple(str(v) for v in values) if isinstance(values, list) else (),
            question=texts(question),
            invalid=texts(invalid),
            needs=tuple(n for n in needs if isinstance(n, int)) if isinstance(needs, list) else (),
            intro=texts(intro),
        )
        for item_id, kind, variable, slot_type, values, question, invalid, needs, intro in rows
    }
