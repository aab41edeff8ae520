"""Language detection without domain words (issue 27 item 3): the word lists hold no bot's field words, and
short everyday inputs outside banking are told apart."""

import pytest

from knowledge.matching import detect_language
from knowledge.matching.language import _WORD_SETS

DOMAIN_WORDS = {
    "fr": ["carte", "compte", "virement", "banque", "argent", "paiement", "payer", "adresse", "probleme"],
    "en": ["card", "account", "transfer", "bank", "money", "payment", "pay", "password", "address", "problem"],
    "nl": ["kaart", "rekening", "overschrijving", "bank", "geld", "betaling", "betalen", "wachtwoord", "adres"],
}


@pytest.mark.parametrize("language", ["fr", "en", "nl"])
def test_the_word_lists_hold_no_banking_words(language):
    assert not set(DOMAIN_WORDS[language]) & _WORD_SETS[language]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("où est la piscine ?", "fr"),
        ("il fait froid ce matin", "fr"),
        ("je voudrais inscrire ma fille au judo", "fr"),
        ("where is the nearest bakery", "en"),
        ("my flight was cancelled", "en"),
        ("is the museum open on mondays?", "en"),
        ("waar is de dichtstbijzijnde bakker", "nl"),
        ("mijn vlucht is geannuleerd", "nl"),
        ("is het museum open op maandag?", "nl"),
    ],
)
def test_short_everyday_inputs_are_told_apart(text, expected):
    assert detect_language(text, ["fr", "en", "nl"])[0] == expected


def test_a_field_word_alone_is_no_evidence_of_a_language():
    """A word of the bot's field says nothing of the visitor's language: no confidence, whatever the field."""
    for word in ("carte", "card", "rekening", "virement", "transfer"):
        assert detect_language(word, ["fr", "en", "nl"])[1] < 0.5
