"""Language detection among a bot's languages from frequent words and letter patterns; short inputs: low confidence."""

from __future__ import annotations

import math
import re

from .normalise import normalise, strip_accents

# Frequent words per language (with accents; matched after accent stripping too): function words, greetings
# and everyday verbs and adverbs only, no words of any bot's field (no "carte", "card", "rekening"), so that
# detection does not lean toward the domain of the bots it was first tried on (issue 27).
_WORDS = {
    "fr": """le la les un une des du de et est sont je tu il elle on nous vous ils elles ne pas plus que qui quoi
        comment pourquoi quand où combien mon ma mes ton ta tes son sa ses notre votre leur leurs ce cette ces
        avec pour dans sur par sans chez au aux ou mais donc car si oui non merci bonjour bonsoir salut
        avoir être fait faire peux peut veux veut dois doit suis es ai as avons avez ont était été va vais
        je j l d qu n c s m t aujourd hui très bien aussi encore déjà toujours jamais rien tout tous toute
        quel quelle quels quelles voudrais pouvez pourriez svp stp est-ce ça cela ceci y a-t-il il-y
        trop beaucoup peu moins alors puis ici là demain hier soir matin maintenant après avant depuis
        a à chose sais vois dit mettre prendre venir aller voir au revoir bonne journée""",
    "en": """the a an and is are was were be been i you he she it we they me my your his her its our their
        this that these those what which who whom why how when where not no yes do does did don't can't
        can could would should will shall may might must have has had of to in on at for with from by
        about into out up down just only also very so too please thanks thank hello hi hey bye goodbye
        want there here some any all more most other than then if or but because as like make
        i'm it's i've isn't doesn't won't didn't what's let's today tomorrow yesterday tonight now still
        never always nothing something anything everything lot much many go going know see am""",
    "nl": """de het een en is zijn was waren ik jij je u hij zij ze wij we jullie mijn jouw uw haar ons
        onze hun niet geen wel ja nee wat wie waarom hoe wanneer waar welke kan kunnen kun wil willen
        moet moeten heb hebt heeft hebben van voor met op aan in uit bij naar over door om te
        dat die dit deze er hier daar ook nog al maar of want dus als dan graag bedankt dank hallo hoi
        zou zouden worden wordt werd mag mogen ben bent gaat gaan doe doen weet weg niks niets iets
        alles veel heel erg vandaag morgen gisteren vanavond nu altijd nooit elkaar zo goed
        dag doei tot ziens alstublieft alsjeblieft""",
}
# Letter patterns that are much more frequent in one language (checked on accent-stripped words).
_PATTERNS = {
    "fr": [
        r"eau",
        r"aux\b",
        r"ou",
        r"qu",
        r"tion\b",
        r"ment\b",
        r"oi",
        r"ai",
        r"\bl'",
        r"\bd'",
        r"\bj'",
        r"er\b",
        r"ez\b",
    ],
    "en": [
        r"th",
        r"wh",
        r"ing\b",
        r"ly\b",
        r"ck",
        r"ght",
        r"ow",
        r"ee",
        r"'s\b",
        r"n't\b",
        r"y\b",
    ],
    "nl": [
        r"ij",
        r"oe",
        r"aa",
        r"uu",
        r"sch",
        r"cht",
        r"\bge",
        r"en\b",
        r"lijk",
        r"heid\b",
        r"oo",
        r"ui",
    ],
}
_ACCENTS = {"fr": "éèêàçùâîôûœ", "nl": "ëïé", "en": ""}

_WORD_SETS = {lang: {strip_accents(w) for w in words.split()} for lang, words in _WORDS.items()}
_PATTERN_RES = {lang: [re.compile(p) for p in ps] for lang, ps in _PATTERNS.items()}


def _scores(text: str, languages: list[str]) -> tuple[dict[str, float], int]:
    raw = text.lower()
    norm = normalise(text, "xx")
    words = norm.split()
    scores = {lang: 0.0 for lang in languages}
    for w in words:
        owners = [lang for lang in languages if w in _WORD_SETS.get(lang, ())]
        for lang in owners:
            scores[lang] += 2.0 / len(owners)  # a word shared by two languages is weaker evidence
    for lang in languages:
        for rx in _PATTERN_RES.get(lang, ()):
            scores[lang] += 0.25 * len(rx.findall(norm))
        for ch in _ACCENTS.get(lang, ""):
            scores[lang] += 1.0 * raw.count(ch)
    return scores, len(words)


def detect_language(text: str, languages: list[str]) -> tuple[str, float]:
    """Best of `languages` for `text`, with a confidence in 0..1.

    Confidence combines how far the best language is ahead and how much evidence there is:
    one or two words can't be "clearly" another language, so they stay low. A bot with one
    language gets it with confidence 1. Languages without a profile never win over one with a profile.
    """
    if not languages:
        raise ValueError("languages must not be empty")
    if len(languages) == 1:
        return languages[0], 1.0
    scores, n_words = _scores(text, languages)
    ranked = sorted(languages, key=lambda lang: (-scores[lang], languages.index(lang)))
    best, second = ranked[0], ranked[1]
    s1, s2 = scores[best], scores[second]
    if s1 <= 0:
        return languages[0], 0.0
    return best, round(max(0.0, min(1.0, confidence(s1, s2, n_words))), 3)


def confidence(best: float, second: float, n_words: int) -> float:
    """How sure the best language is: its lead over the second times the evidence for it.

    The evidence is what the input says of its language, not its length: "merci beaucoup" (two French
    words) is surer than "Paris est magique" is. One recognised word alone stays below the engine's 0.5
    ("hello" on a French page does not switch the talk), two clear ones pass it; unknown words add nothing.
    """
    lead = (best - second) / (best + 1.0)
    evidence = 1.0 - math.exp(-best / 2.5)  # one word (2): 0.55, two (4): 0.80, three (6): 0.91
    return lead * evidence
