"""The knowledge base's own spelling of its capitalised words, given to an input before the sentence encoder reads
it: the encoder tells case apart ("DigiD werkt niet" and "digid werkt niet" are 0.50 apart in cosine, "WOZ
bezwaar" and "woz bezwaar" 0.48), and visitors type in lowercase what the knowledge base writes "DigiD", "WOZ",
"CAF" or "Amsterdam". The lexical ranking is not concerned: it reads normalised (lowercase) words."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

# A word: letters and digits ("WOZ-waarde" is two: "woz" alone is "WOZ" too).
_WORD = re.compile(r"[^\W_]+")


def spellings(texts: Iterable[str]) -> dict[str, str]:
    """Lowercased word -> how the knowledge base writes it, for the words it writes with a capital that is not
    a text's first letter, and never in lowercase (a word also written in lowercase is left alone: "Post" in a
    title and "post" elsewhere). The most frequent spelling wins. The texts are cut at whitespace by str.split
    and only the distinct pieces are read word by word: 500,000 formulations take about a second."""
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
    lowercase = {word for word in counts if word == word.lower()}
    written: dict[str, tuple[int, str]] = {}
    for word, count in counts.items():
        lower = word.lower()
        if count > 0 and lower not in lowercase and count > written.get(lower, (0, ""))[0]:
            written[lower] = (count, word)
    return {lower: word for lower, (_, word) in written.items()}


def respelled(text: str, spelling: dict[str, str]) -> str:
    """`text` with each word the knowledge base writes capitalised written its way ("digid kwijt" -> "DigiD
    kwijt"); any other word as typed."""
    if not spelling:
        return text
    return _WORD.sub(lambda found: spelling.get(found.group().lower(), found.group()), text)
