"""Normalisation, tokenising and stemming per language (fr, en, nl)."""

import pytest

from knowledge.matching import normalise
from knowledge.matching.analyse import content_words
from knowledge.matching.stemming import stem
from knowledge.matching.tokenise import tokenise


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Bonjour !", "bonjour"),
        ("ÉLÈVE à l'École", "eleve a l'ecole"),
        ("Bonjouuuur", "bonjour"),
        ("heeeelp", "help"),
        ("l&#39;adresse &amp; le <b>code</b>", "l'adresse le code"),
        ("&amp;eacute;t&amp;eacute;", "ete"),  # double-escaped entities
        ("Œuvre, cœur... ça?!", "oeuvre coeur ca"),
        ("J’ai   perdu\tma carte", "j'ai perdu ma carte"),
        ("  'quoted' - dash ", "quoted dash"),
        ("1000 euros", "1000 euros"),
        ("", ""),
    ],
)
def test_normalise(raw, expected):
    assert normalise(raw, "fr") == expected


def test_tokenise_french_elisions_and_compounds():
    assert tokenise(normalise("J'ai perdu l'adresse aujourd'hui", "fr"), "fr") == [
        "je",
        "ai",
        "perdu",
        "le",
        "adresse",
        "aujourdhui",
    ]
    assert tokenise(normalise("Qu'est-ce que c'est ?", "fr"), "fr") == [
        "que",
        "estce",
        "que",
        "ce",
        "est",
    ]
    assert tokenise("mon e-mail", "fr") == ["mon", "email"]


def test_tokenise_english_contractions():
    assert tokenise(normalise("I can't find my card's PIN, I dont know", "en"), "en") == [
        "i",
        "can",
        "not",
        "find",
        "my",
        "card",
        "pin",
        "i",
        "do",
        "not",
        "know",
    ]
    assert tokenise("it doesn't work i've tried", "en") == [
        "it",
        "does",
        "not",
        "work",
        "i",
        "have",
        "tried",
    ]


def test_tokenise_dutch_apostrophes():
    assert tokenise(normalise("z'n auto's en 't huis", "nl"), "nl") == [
        "zijn",
        "autos",
        "en",
        "het",
        "huis",
    ]


def test_stop_words_removed_but_not_when_everything_is_one():
    assert content_words("Comment changer mon adresse ?", "fr") == [
        "comment",
        "changer",
        "adresse",
    ]
    assert content_words("I lost my card", "en") == ["lost", "card"]
    # "oui"/"non"/"yes"/"no" are intents in decision trees: never stop words
    assert content_words("non", "fr") == ["non"]
    assert content_words("yes", "en") == ["yes"]
    # an input made only of stop words keeps them rather than becoming empty
    assert content_words("de la", "fr") == ["de", "la"]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("fr", ["activer", "activation", "activée", "activez"]),
        ("en", ["activate", "activated", "activating", "activation"]),
        ("nl", ["activeren", "activeer", "geactiveerd"]),
    ],
)
def test_stemming_per_language_groups_inflections(language, words):
    stems = {stem(normalise(w, language), language) for w in words}
    # Snowball conflates inflections to one or two stems, never one stem per word
    assert len(stems) <= 2, stems


def test_stemming_is_language_specific():
    assert stem("cartes", "fr") == stem("carte", "fr")
    assert stem("payments", "en") == stem("payment", "en")
    assert stem("betalingen", "nl") == stem("betaling", "nl")
    # an unknown language leaves words alone
    assert stem("cartes", "xx") == "cartes"


def test_particles_that_turn_a_verb_around_are_kept():
    # "turn on" / "turn off", "top up", "log in" / "log out", "zet aan" / "zet uit", "schakel in": the particle is
    # what tells two items apart.
    assert content_words("How do I turn off notifications?", "en") == ["how", "turn", "off", "notifications"]
    assert content_words("top up my card", "en") == ["top", "up", "card"]
    assert content_words("Zet de verwarming uit", "nl") == ["zet", "verwarming", "uit"]
    assert content_words("Schakel de wifi in", "nl") == ["schakel", "wifi", "in"]
    # Plain prepositions stay stop words.
    assert content_words("Ik woon op de tweede verdieping", "nl") == ["woon", "tweede", "verdieping"]
