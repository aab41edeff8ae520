"""Language detection among a bot's languages: long inputs are confident, short ones are not."""

import pytest

from knowledge.matching import detect_language

LANGS = ["fr", "en", "nl"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bonjour, je voudrais savoir comment changer l'adresse de mon compte", "fr"),
        ("Hello, I would like to know how to change the address on my account", "en"),
        (
            "Hallo, ik wil graag weten hoe ik het adres van mijn rekening kan wijzigen",
            "nl",
        ),
        ("Pourquoi ma carte a-t-elle été refusée au distributeur ?", "fr"),
        ("Why was my card declined at the cash machine?", "en"),
        ("Waarom is mijn kaart geweigerd bij de geldautomaat?", "nl"),
    ],
)
def test_long_inputs_are_detected_with_confidence(text, expected):
    lang, conf = detect_language(text, LANGS)
    assert lang == expected
    assert conf >= 0.5


@pytest.mark.parametrize("text", ["ok", "carte", "bank", "Paris", "1234", ""])
def test_short_inputs_have_low_confidence(text):
    _, conf = detect_language(text, LANGS)
    assert conf < 0.5


def test_only_the_bots_languages_are_candidates():
    lang, _ = detect_language("Hallo, ik wil graag weten hoe ik mijn adres kan wijzigen", ["fr", "en"])
    assert lang in {"fr", "en"}
    assert detect_language("anything at all", ["fr"]) == ("fr", 1.0)
    with pytest.raises(ValueError):
        detect_language("hello", [])


def test_confidence_grows_with_length():
    _, short = detect_language("merci", LANGS)
    _, longer = detect_language("merci beaucoup pour votre aide, je vais essayer cela", LANGS)
    assert longer > short
