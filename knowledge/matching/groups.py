"""Matching groups: expand `{Group name}` references in formulations into every member, nested, cycle-safe."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from .types import MatchingGroupDef

REFERENCE = re.compile(r"\{\s*([^{}]+?)\s*\}")


def group_key(name: str) -> str:
    """Group names compare case-insensitively and ignore surrounding/multiple spaces."""
    return " ".join(name.split()).casefold()


def has_reference(text: str) -> bool:
    return bool(REFERENCE.search(text))


def plain_text(text: str) -> str:
    """The formulation with each `{name}` replaced by the name itself: a stable, readable form."""
    return " ".join(REFERENCE.sub(lambda m: m.group(1), text).split())


class GroupExpander:
    """Expands formulations against a set of groups; results per group are memoised.

    A reference to an unknown group stands for its own name (the author meant those words);
    a reference that would loop back into a group being expanded is dropped, so cycles end.
    When the product of all members is larger than `max_variants`, each member still appears
    in at least one variant (the others keep their first member) instead of truncating the product.
    """

    def __init__(
        self,
        groups: Iterable[MatchingGroupDef],
        max_variants: int = 256,
        max_members: int = 1000,
    ):
        self._members: dict[str, list[str]] = {}
        for g in groups:
            self._members.setdefault(group_key(g.name), []).extend(g.members)
        self.max_variants = max_variants
        self.max_members = max_members
        self._cache: dict[str, list[str]] = {}

    def members(self, name: str, _stack: tuple[str, ...] = ()) -> list[str]:
        """Every phrase group `name` stands for, nested references expanded."""
        key = group_key(name)
        if key in self._cache:
            return self._cache[key]
        if key not in self._members:
            return [name]
        if key in _stack:
            return []
        out: list[str] = []
        seen: set[str] = set()
        for member in self._members[key]:
            for phrase in self._expand(member, (*_stack, key), self.max_members):
                if phrase and phrase not in seen:
                    seen.add(phrase)
                    out.append(phrase)
            if len(out) >= self.max_members:
                break
        out = out[: self.max_members]
        if not _stack:
            self._cache[key] = out  # only complete expansions are cached (inner ones may be cut by a cycle)
        return out

    def expand(self, text: str) -> list[str]:
        """All variants of a formulation text (the text itself when it references no group)."""
        return self._expand(text, (), self.max_variants) or [plain_text(text)]

    def _expand(self, text: str, stack: tuple[str, ...], limit: int) -> list[str]:
        pieces = REFERENCE.split(text)  # literal, name, literal, name, ..., literal
        if len(pieces) == 1:
            return [" ".join(text.split())]
        options: list[list[str]] = []
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                options.append([piece])
            else:
                options.append(self.members(piece, stack) or [""])
        total = 1
        for o in options:
            total *= len(o)
        if total <= limit:
            combos: Iterable[tuple[str, ...]] = itertools.product(*options)
        else:
            combos = _covering(options, limit)
        out: list[str] = []
        seen: set[str] = set()
        for combo in combos:
            phrase = " ".join(" ".join(combo).split())
            if phrase and phrase not in seen:
                seen.add(phrase)
                out.append(phrase)
        return out


def _covering(options: list[list[str]], limit: int) -> Iterable[tuple[str, ...]]:
    """Variants where one slot varies at a time, so every member appears at least once."""
    base = [o[0] for o in options]
    yield tuple(base)
    count = 1
    for i, o in enumerate(options):
        for member in o[1:]:
            if count >= limit:
                return
            variant = list(base)
            variant[i] = member
            count += 1
            yield tuple(variant)
