"""Vague inputs: a question that names a subject the bot has several items on ("problème carte", "Hello, I have
a question about my card") and nothing that tells them apart; the items that share its subject. And inputs that
name no subject at all ("merci", "ok") set against an item they have nothing in common with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .normalise import normalise
from .stemming import stem
from .stopwords import filler_words, particles, stop_words
from .tokenise import tokenise

if TYPE_CHECKING:
    from .lexical import LexicalIndex

# An input is vague when, once its stop words and fillers (greetings, "question", "problem"...) are set aside,
# it has exactly one informative word, the bot knows it, and at least this many items use it: the input then
# says which subject, not which of the subject's items. A word the bot does not know keeps the input as it is
# (it may be precisely what the question is about, and out of the bot's scope).
MIN_SHARED_ITEMS = 2


def informative_words(text: str, language: str) -> list[str]:
    """The words of `text` that say what it is about: neither stop words, fillers nor verb particles but the last
    word (there a particle belongs to the verb and says which item: "Ventilator uit", "log me out"; elsewhere it
    is mostly a preposition: "a question on my card")."""
    words = tokenise(normalise(text, language), language)
    set_aside = stop_words(language) | filler_words(language)
    loose = particles(language)
    last = len(words) - 1
    return [w for n, w in enumerate(words) if w not in set_aside and (n == last or w not in loose)]


def vague_topic(
    lexical: LexicalIndex, text: str, mask_of: Callable[[], np.ndarray | None] = lambda: None, best_text: str = ""
) -> frozenset[int] | None:
    """Indexes of the items (those allowed by `mask_of()`, asked only for a vague input) sharing a vague
    input's one informative word; None when the input is not vague (see MIN_SHARED_ITEMS). `best_text`: the
    best candidate's formulation; when it says no more than the input ("Quel est mon conseiller ?" written for
    an item), the bot's author meant that item for it, and the input is not vague for this bot."""
    words = set(informative_words(text, lexical.language))
    if len(words) != 1:
        return None
    if best_text and set(informative_words(best_text, lexical.language)) <= words:
        return None
    term = lexical.term_id.get(stem(words.pop(), lexical.language))
    if term is None:
        return None
    items, _ = lexical.item_postings.of(term)
    mask = mask_of()
    if mask is not None:
        items = items[mask[items]]
    if len(items) < MIN_SHARED_ITEMS:
        return None
    return frozenset(int(i) for i in items)


def says_nothing_of(text: str, formulations_of: Callable[[], Sequence[str]], language: str) -> bool:
    """Whether `text` names no subject (stop words and fillers only: "merci", "ok", "bonjour") and has no word in
    common with an item written as `formulations_of()` (asked only for such a text: most talks name a subject),
    none of which is as bare: the item ranked best for it then owes its rank to chance, not to anything the
    visitor said ("merci" was offered how to return a product). An item written as bare as the input ("Merci",
    "Bonjour": the bot's small talk) keeps it, as does one sharing its words ("aide" for "Comment obtenir de
    l'aide ?")."""
    if informative_words(text, language):
        return False
    formulations = formulations_of()
    if any(not informative_words(f, language) for f in formulations):
        return False
    said = _stems(text, language)
    return not any(said & _stems(f, language) for f in formulations)


def _stems(text: str, language: str) -> set[str]:
    return {stem(w, language) for w in tokenise(normalise(text, language), language)}
