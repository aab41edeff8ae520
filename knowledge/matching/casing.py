"""The knowledge base's own spelling of its words, given to an input before the sentence encoder reads it. The
encoder tells case and accents apart (cosine 0.50 between "DigiD werkt niet" and "digid werkt niet", 0.48 between
"WOZ bezwaar" and "woz bezwaar", 0.79 between "déjà payé" and "deja paye"), and visitors type in lowercase and
without accents what the knowledge base writes "DigiD", "WOZ", "Amsterdam" or "déjà". The lexical ranking is not
concerned: it reads normalised words (lowercase, no accents).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from .normalise import strip_accents

# A word: letters and digits ("WOZ-waarde" is two: "woz" alone is "WOZ" too).
_WORD = re.compile(r"[^\W_]+")


def spellings(texts: Iterable[str]) -> dict[str, str]:
    """A word as typed plainly (lowercase, no accents) -> how the knowledge base writes it, for the words it
    writes otherwise (a capital that is not a text's first letter, an accent) and never plainly: "ou" is left
    alone where the knowledge base writes "ou" and "où". The most frequent spelling wins. The texts are cut at
    whitespace by str.split and only the distinct pieces are read word by word: 500,000 formulations take
    about 1.5 s (bench: nine-word texts)."""
    texts = list(texts)
    pieces = Counter(" ".join(texts).split())
    # A text's first word is capitalised for the sentence: "Comment …" says nothing of "comment".
    opening = Counter(text.split(None, 1)[0] for text in texts if text and not text[:1].isspace())
    counts: Counter[str] = Counter()
    for piece, count in pieces.items():
        words = _WORD.findall(piece)
        for word in words:
            counts[word] += count
        if words and words[0][1:] == words[0][1:].lower() and piece in opening:
            counts[words[0]] -= opening[piece]
    plain = {word for word in counts if word == typed(word)}
    written: dict[str, tuple[int, str]] = {}
    for word, count in counts.items():
        key = typed(word)
        if count > 0 and key not in plain and count > written.get(key, (0, ""))[0]:
            written[key] = (count, word)
    return {key: word for key, (_, word) in written.items()}


def typed(word: str) -> str:
    """A word as a visitor in a hurry types it: lowercase, without accents."""
    lower = word.lower()
    return lower if lower.isascii() else strip_accents(lower)


def respelled(text: str, spelling: dict[str, str]) -> str:
    """`text` with each word the knowledge base writes otherwise written its way ("digid kwijt" -> "DigiD
    kwijt", "deja paye" -> "déjà payé"); any other word as typed."""
    if not spelling:
        return text
    return _WORD.sub(lambda found: spelling.get(typed(found.group()), found.group()), text)
