"""Suggestions while the user types (chat/search): rewordable formulations matching the typed words."""

from . import matching
from .snapshot import Snapshot


def suggestions(
    snapshot: Snapshot, text: str, *, language: str, space_id: int, limit: int = 10, only_rewordable: bool = True
) -> list[dict]:
    """Formulations whose words start with every typed word (the last one may be half typed); those
    that start with the typed text come first. One suggestion per knowledge item."""
    words = matching.normalise(text, language).split()
    if not words:
        return []
    allowed = snapshot.allowed_items(language, space_id, False)
    prefix = " ".join(words)
    starts, contains, seen = [], [], set()
    for fid, item_id, formulation, rewordable, normalised, tokens in _rows(snapshot, language):
        if item_id in seen or item_id not in allowed or (only_rewordable and not rewordable):
            continue
        if not all(any(token.startswith(word) for token in tokens) for word in words):
            continue
        seen.add(item_id)
        entry = {"rootConditionReword": formulation, "knowledgeId": item_id, "formulationId": fid}
        (starts if normalised.startswith(prefix) else contains).append(entry)
        if len(starts) >= limit:
            break
    return (starts + contains)[:limit]


def _rows(snapshot: Snapshot, language: str):
    """Formulations with their normalised text, computed once per snapshot. Formulations that refer
    to a matching group ({name}) are not sentences a user would pick."""

    def build():
        rows = []
        for fid, item_id, text, rewordable in snapshot.formulations.get(language, ()):
            if "{" in text:
                continue
            normalised = matching.normalise(text, language)
            rows.append((fid, item_id, text, rewordable, normalised, normalised.split()))
        return rows

    return snapshot.memo(("search", language), build)
