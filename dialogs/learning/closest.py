"""The items closest to an input, as the matcher ranks them for a talk (drafts included: an editor may
finish one with the input), from the input's vector the grouping already computed."""

from __future__ import annotations

import numpy as np

from knowledge.matching.scoring import softmax

CLOSEST = 3


def closest_items(snapshot, matcher, language: str, text: str, vector: np.ndarray | None) -> list:
    """The matcher's best candidates for `text` among the items a question may reach in any space
    (published or draft, not disabled), best first; `vector` is the input's model vector, if any."""
    allowed = set()
    for space_id in snapshot.space_names:
        allowed |= snapshot.allowed_items(language, space_id, True)
    if not allowed or not len(matcher.item_ids):
        return []
    evidence = None
    if vector is not None and matcher.vectors is not None:
        # What Matcher.evidence computes, from the vector we have instead of encoding the text again.
        parts = matcher.components(text, vector=vector)
        everything = np.ones(len(matcher.item_ids), dtype=bool)
        evidence = (
            softmax(matcher.fuse(parts, everything), everything),
            parts["similarity"],
            parts["rows"],
            everything,
        )
    return matcher.rank(text, allowed=allowed, k=CLOSEST, evidence=evidence)
