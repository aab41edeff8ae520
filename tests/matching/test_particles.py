"""Two items written with the same words but for the particle that turns the verb around ("turn on" / "turn
off", "zet aan" / "zet uit") are told apart by the lexical ranking (lexical-only bots have nothing else)."""

import pytest

from knowledge.matching import FormulationEntry, Matcher, MatcherConfig

BOTS = {
    "en": {
        1: ["How do I turn on notifications?", "Switch notifications on"],
        2: ["How do I turn off notifications?", "Switch notifications off"],
        3: ["How do I log in?", "I cannot log in to the app"],
        4: ["How do I log out?", "Log out of the app"],
    },
    "nl": {
        1: ["Hoe zet ik de meldingen aan?", "Meldingen aanzetten"],
        2: ["Hoe zet ik de meldingen uit?", "Meldingen uitzetten"],
        3: ["Hoe schakel ik de verwarming in?", "Verwarming inschakelen"],
        4: ["Hoe schakel ik de verwarming uit?", "Verwarming uitschakelen"],
    },
}


def build(language):
    entries = [
        FormulationEntry(id=n, item_id=item, text=text, vector=None)
        for n, (item, text) in enumerate((i, t) for i, texts in BOTS[language].items() for t in texts)
    ]
    return Matcher.build(language, entries, [], MatcherConfig(use_embeddings=False, calibrate=False))


@pytest.mark.parametrize(
    ("language", "question", "item"),
    [
        ("en", "turn notifications off please", 2),
        ("en", "can you turn the notifications on", 1),
        ("en", "log me out", 4),
        ("en", "log me in", 3),
        ("nl", "meldingen uit", 2),
        ("nl", "zet meldingen aan", 1),
        ("nl", "verwarming in schakelen", 3),
        ("nl", "schakel verwarming uit", 4),
    ],
)
def test_the_particle_decides(language, question, item):
    assert build(language).rank(question)[0].item_id == item
