"""Text normalisation before tokenising: HTML, case, accents, punctuation and stretched letters."""

from __future__ import annotations

import html
import re
import unicodedata

_TAG_RE = re.compile(r"<[^>]{0,200}>")
# Ligatures and letters that NFKD does not decompose into ASCII.
_FOLD = str.maketrans({"œ": "oe", "æ": "ae", "ß": "ss", "ø": "o", "đ": "d", "ł": "l", "ı": "i"})
# Every apostrophe-like character becomes ASCII ' so that elisions are handled once.
_APOSTROPHES = str.maketrans({c: "'" for c in "’‘`´ʼ′＇"})
# Anything that is not a letter, digit, apostrophe or hyphen separates words.
_SEPARATORS = re.compile(r"[^a-z0-9'\-]+")
# An apostrophe or hyphen only belongs to a word when it sits between two letters or digits.
_LOOSE_JOINERS = re.compile(r"(?<![a-z0-9])['\-]+|['\-]+(?![a-z0-9])")
# Three or more of the same letter never occur in fr/en/nl words: "bonjouuur" -> "bonjour".
_STRETCHED = re.compile(r"([a-z])\1{2,}")


def strip_accents(text: str) -> str:
    """Remove diacritics: "éàç" -> "eac"."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def normalise(text: str, language: str = "fr") -> str:
    """Return `text` lower-cased, without accents, HTML or punctuation, words separated by one space.

    Apostrophes and hyphens inside words are kept (the tokeniser needs them for elisions and
    compounds). `language` is accepted for symmetry with the other steps; the rules are shared.
    """
    if not text:
        return ""
    text = html.unescape(html.unescape(text))  # double-escaped input (&amp;eacute;) is common in CMS exports
    text = _TAG_RE.sub(" ", text)
    text = text.lower().translate(_FOLD).translate(_APOSTROPHES)
    text = strip_accents(text)
    text = _SEPARATORS.sub(" ", text)
    text = _LOOSE_JOINERS.sub(" ", text)
    text = _STRETCHED.sub(r"\1", text)
    return " ".join(text.split())


def squeeze(word: str) -> str:
    """Collapse every run of a repeated letter to one ("hello" -> "helo"); a key that ignores doubled letters."""
    out = []
    for c in word:
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)
