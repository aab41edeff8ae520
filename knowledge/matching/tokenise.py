"""Tokenising normalised text into words: elisions, contractions and hyphen/apostrophe compounds per language."""

from __future__ import annotations

# Words written with an apostrophe that are one word, not an elision.
_APOSTROPHE_WORDS = {
    "fr": {
        "aujourd'hui": "aujourdhui",
        "quelqu'un": "quelquun",
        "presqu'ile": "presquile",
        "prud'homme": "prudhomme",
    },
    "en": {"o'clock": "oclock"},
    "nl": {},
}
# French elided articles and pronouns, expanded so that stop words catch them.
_FR_ELISIONS = {
    "l": "le",
    "j": "je",
    "d": "de",
    "qu": "que",
    "n": "ne",
    "s": "se",
    "t": "te",
    "m": "me",
    "c": "ce",
    "jusqu": "jusque",
    "lorsqu": "lorsque",
    "puisqu": "puisque",
    "quoiqu": "quoique",
}
# English contractions: suffix after the apostrophe -> the word it stands for.
_EN_SUFFIXES = {
    "s": "",
    "m": "am",
    "re": "are",
    "ve": "have",
    "ll": "will",
    "d": "would",
    "t": "",
}
_EN_IRREGULAR = {
    "won't": ["will", "not"],
    "can't": ["can", "not"],
    "shan't": ["shall", "not"],
    "ain't": ["is", "not"],
}
# Contractions typed without their apostrophe ("dont", "cant", "im") are frequent in chat.
_EN_BARE = {
    "dont": ["do", "not"],
    "doesnt": ["does", "not"],
    "didnt": ["did", "not"],
    "cant": ["can", "not"],
    "wont": ["will", "not"],
    "isnt": ["is", "not"],
    "arent": ["are", "not"],
    "wasnt": ["was", "not"],
    "havent": ["have", "not"],
    "hasnt": ["has", "not"],
    "couldnt": ["could", "not"],
    "wouldnt": ["would", "not"],
    "shouldnt": ["should", "not"],
    "im": ["i", "am"],
    "ive": ["i", "have"],
    "youre": ["you", "are"],
}
# Dutch: "z'n" / "m'n" as possessives; "auto's" is a plural. "'t" and "'k" lose their apostrophe in
# normalisation (it is not between letters) and arrive as bare "t" / "k".
_NL_SHORT = {"z'n": "zijn", "m'n": "mijn", "d'r": "haar"}
_NL_BARE = {"t": "het", "k": "ik"}


def _split_apostrophe(word: str, language: str) -> list[str]:
    whole = _APOSTROPHE_WORDS.get(language, {}).get(word)
    if whole:
        return [whole]
    if language == "fr":
        head, _, tail = word.partition("'")
        if head in _FR_ELISIONS:
            return (
                [_FR_ELISIONS[head], *_split_apostrophe(tail, language)] if "'" in tail else [_FR_ELISIONS[head], tail]
            )
        return [word.replace("'", "")]
    if language == "en":
        if word in _EN_IRREGULAR:
            return list(_EN_IRREGULAR[word])
        head, _, tail = word.rpartition("'")
        if tail == "t" and head.endswith("n"):  # doesn't -> does not
            return [head[:-1], "not"]
        if tail in _EN_SUFFIXES:
            extra = _EN_SUFFIXES[tail]
            return [head, extra] if extra else [head]
        return [word.replace("'", "")]
    if language == "nl":
        if word in _NL_SHORT:
            return [_NL_SHORT[word]]
        return [word.replace("'", "")]  # auto's -> autos
    return [word.replace("'", "")]


def tokenise(normalised: str, language: str) -> list[str]:
    """Words of an already normalised text, with elisions and contractions expanded.

    Hyphenated compounds are joined ("e-mail" -> "email", "peut-etre" -> "peutetre"); the
    index also tries joining and splitting words against its vocabulary (see lexical.py),
    so "porte-monnaie", "porte monnaie" and "portemonnaie" meet.
    """
    language = language[:2].lower()
    out: list[str] = []
    for word in normalised.split():
        if "'" in word:
            parts = _split_apostrophe(word, language)
        elif language == "en" and word in _EN_BARE:
            parts = _EN_BARE[word]
        elif language == "nl" and word in _NL_BARE:
            parts = [_NL_BARE[word]]
        else:
            parts = [word]
        for p in parts:
            p = p.replace("-", "")
            if p:
                out.append(p)
    return out
