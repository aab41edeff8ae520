"""Opposite actions: an input that asks to switch something off, close or unlock it is not answered at once with
an item whose formulations only ever switch it on, open or lock it, when a twin that does what was asked is
ranked too ("Werkbank licht uit" had the "light on" item as a direct answer: the sentence encoder reads both the
same, and the two items share every other word)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .normalise import normalise
from .stemming import stem
from .tokenise import tokenise
from .topic import informative_words

# Per language, the axes along which two actions undo each other, each as its two poles' words (any
# inflection the stemmer brings to the same stem as one of them). Switching on and activating are one axis
# ("Désactive l'éclairage" is not "Allume la lumière"); opening is another (French "ouvrir la lumière" is
# switching it on). Language-level word lists: actions on a thing (power, opening, locking, blocking, raising or
# lowering it: Dutch blinds go "omhoog" and "naar beneden"), no word of any bot's field. Words that are also
# common nouns or prepositions elsewhere are left out ("monter" stems as "montant", Dutch "op" is everywhere) or
# only count as a particle (_PARTICLES below: English "on" is mostly a preposition).
_AXES: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (
        (
            "allume allumer allumez allumee active activer activez reactiver",
            "eteins eteindre eteignez eteint eteinte coupe couper coupez desactive desactiver desactivez",
        ),
        ("ouvre ouvrir ouvrez ouvert ouverte", "ferme fermer fermez fermee"),
        ("verrouille verrouiller verrouillez", "deverrouille deverrouiller deverrouillez"),
        ("bloque bloquer bloquez", "debloque debloquer debloquez"),
        ("augmente augmenter augmentez", "diminue diminuer diminuez reduire reduis reduisez"),
        ("ajoute ajouter ajoutez cree creer creez", "supprime supprimer supprimez enleve enlever enlevez"),
        ("abonne abonner inscris inscrire", "desabonne desabonner desinscris desinscrire resilie resilier"),
        ("connecte connecter connectez", "deconnecte deconnecter deconnectez"),
    ),
    "nl": (
        (
            "aan aanzetten aanzet aandoen inschakelen inschakel ingeschakeld activeer activeren geactiveerd",
            "uit uitzetten uitzet uitdoen uitschakelen uitschakel uitgeschakeld deactiveer deactiveren gedeactiveerd",
        ),
        ("open openen opendoen geopend", "dicht dichtdoen sluiten sluit gesloten"),
        ("vergrendel vergrendelen vergrendeld", "ontgrendel ontgrendelen ontgrendeld"),
        ("blokkeer blokkeren geblokkeerd", "deblokkeer deblokkeren gedeblokkeerd"),
        ("verhoog verhogen verhoogd verleng verlengen verlengd", "verlaag verlagen verlaagd verkort verkorten"),
        ("toevoegen toegevoegd aanmaken aangemaakt", "verwijder verwijderen verwijderd"),
        ("aanmelden aanmeld inschrijven inschrijf", "afmelden afmeld uitschrijven uitschrijf opzeggen opzeg"),
        ("inloggen inlog", "uitloggen uitlog"),
        ("omhoog", "omlaag neer"),
    ),
    "en": (
        ("on activate activated enable enabled", "off deactivate deactivated disable disabled"),
        ("open opened", "close closed shut"),
        ("lock locked", "unlock unlocked"),
        ("block blocked freeze frozen", "unblock unblocked unfreeze unfrozen"),
        ("increase increased raise", "decrease decreased reduce reduced lower"),
        ("add added create created", "remove removed delete deleted"),
        ("subscribe subscribed", "unsubscribe unsubscribed"),
        ("connect connected", "disconnect disconnected"),
    ),
}
# Words of the axes that are also prepositions: they only say an action as a text's last word, where they
# belong to the verb ("Schakel de ventilator in", "turn the light off"; not "in de keuken", "on my card").
_PARTICLES = {"nl": frozenset(["in"]), "en": frozenset(["on", "off"])}
# Dutch "in" switches on ("schakel ... in"); it joins the power axis as a particle only.
_EXTRA = {"nl": {"in": (0, 0)}}
# Actions said in several words, each as a word of _AXES that says the same action: Dutch locks "op slot",
# unlocks "van het slot" and lowers "naar beneden", English turns on and off, logs and signs in and out before
# the thing as well as after.
_PHRASES: dict[str, dict[str, str]] = {
    "nl": {
        "op slot": "vergrendel",
        "van het slot": "ontgrendel",
        "van slot": "ontgrendel",
        "naar boven": "omhoog",
        "naar beneden": "omlaag",
    },
    "en": {
        "turn on": "on",
        "switch on": "on",
        "turn off": "off",
        "switch off": "off",
        "log in": "connect",
        "sign in": "connect",
        "log out": "disconnect",
        "sign out": "disconnect",
    },
}


def _poles_of(language: str) -> dict[str, tuple[int, int]]:
    """stem -> (axis, pole) for `language`."""
    table: dict[str, tuple[int, int]] = {}
    for axis, words in enumerate(_AXES.get(language, ())):
        for pole, side in enumerate(words):
            for word in side.split():
                table[stem(word, language)] = (axis, pole)
    for word, place in _EXTRA.get(language, {}).items():
        table[stem(word, language)] = place
    return table


_TABLES = {language: _poles_of(language) for language in _AXES}
_PHRASE_POLES = {
    language: {phrase: _TABLES[language][stem(word, language)] for phrase, word in phrases.items()}
    for language, phrases in _PHRASES.items()
}


@lru_cache(maxsize=65536)
def poles(text: str, language: str) -> frozenset[tuple[int, int]]:
    """The (axis, pole) pairs the words of `text` say: which actions it asks for."""
    language = language[:2].lower()
    table = _TABLES.get(language)
    if not table:
        return frozenset()
    words = tokenise(normalise(text, language), language)
    loose = _PARTICLES.get(language, frozenset())
    last = len(words) - 1
    found = set()
    for n, word in enumerate(words):
        if word in loose and n != last:
            continue
        place = table.get(stem(word, language))
        if place is not None:
            found.add(place)
    said = f" {' '.join(words)} "
    found.update(place for phrase, place in _PHRASE_POLES.get(language, {}).items() if f" {phrase} " in said)
    return frozenset(found)


CONTRADICTS, SILENT, AGREES = -1, 0, 1


@lru_cache(maxsize=65536)
def subject(text: str, language: str) -> frozenset[str]:
    """What `text` is about: its informative words (topic.informative_words) but the actions."""
    table = _TABLES.get(language[:2].lower(), {})
    return frozenset(w for w in informative_words(text, language) if stem(w, language) not in table)


# Below this length a word inside another is chance ("de" in "deur"), not the same thing.
_MIN_PART = 4


def _same_thing(about: frozenset[str], words: set[str]) -> bool:
    """Whether a word of `about` is one of `words`, or a part of one or the other way round: Dutch writes
    "garagedeur" and "garage deur", "waterkoker switch" and "waterkokerswitch"; inflections share a part too."""
    if about & words:
        return True
    long = [a for a in about if len(a) >= _MIN_PART]
    return any(a in w or w in a for a in long for w in words if len(w) >= _MIN_PART)


def stance(asked: frozenset[tuple[int, int]], formulations: Iterable[str], language: str, about=frozenset()) -> int:
    """How an item written as `formulations` stands to the actions `asked` for: CONTRADICTS when on some axis
    its formulations say the other pole and never the asked one; AGREES when they say every asked one about
    the same thing (a word of `about`, the input's subject, is one of theirs: "Close an account" does not agree
    with "What time do you close?"); else SILENT."""
    if not asked:
        return SILENT
    said: set[tuple[int, int]] = set()
    words: set[str] = set()
    for text in formulations:
        said |= poles(text, language)
        words |= subject(text, language)
    if any((axis, 1 - pole) in said and (axis, pole) not in said for axis, pole in asked):
        return CONTRADICTS
    return AGREES if asked <= said and _same_thing(about, words) else SILENT
