"""Opposite actions (knowledge/matching/polarity.py): an input asking to switch off, close, unlock or unfreeze is
not answered at once with the item that does the opposite, however close the two read; the item that does what
was asked is offered first. Small French, Dutch and English bots built here, lexical and with embeddings."""

import pytest

from knowledge.matching import FormulationEntry, Matcher, MatcherConfig
from knowledge.matching.decide import DIRECT, REWORD, Thresholds, decide
from knowledge.matching.polarity import AGREES, CONTRADICTS, SILENT, poles, stance, subject
from knowledge.matching.types import Candidate

BOTS = {
    "nl": {
        "licht aan": ["Doe de werkbank lamp aan", "Zet werkbank licht naar aan"],
        "licht uit": ["Doe de werkbank lamp uit", "Schakel werkbank verlichting uit"],
        "rolluik omhoog": ["Doe het rolluik in de keuken omhoog", "Maak het rolluik in de keuken naar boven"],
        "rolluik omlaag": ["Doe het rolluik keuken omlaag"],
        "rijbewijs": ["Rijbewijs verlengen"],
        "paspoort": ["Paspoort aanvragen"],
    },
    "fr": {
        "ouvrir": ["Comment ouvrir un compte joint ?", "Ouvrir un compte joint en ligne"],
        "fermer": ["Clôturer mon compte", "Je veux fermer mon compte"],
        "carte": ["Commander une carte"],
        "virement": ["Faire un virement"],
    },
    "en": {
        "freeze": ["How do I freeze my card?", "Freeze my card in the app"],
        "unfreeze": ["Unblock my card", "My card is blocked, what now?"],
        "pin": ["I forgot my PIN"],
        "limit": ["Change my card limit"],
    },
}


def build(language, use_embeddings):
    bot = BOTS[language]
    texts = [(i, t) for i, (_, formulations) in enumerate(bot.items()) for t in formulations]
    entries = [FormulationEntry(id=n, item_id=i, text=t, vector=None) for n, (i, t) in enumerate(texts)]
    m = Matcher.build(language, entries, [], MatcherConfig(use_embeddings=use_embeddings, calibrate=False))
    m.wait_ready()
    return m, list(bot)


@pytest.mark.parametrize("use_embeddings", [False, True], ids=["lexical", "embeddings"])
@pytest.mark.parametrize(
    ("language", "question", "opposite", "asked"),
    [
        ("nl", "Werkbank licht uit", "licht aan", "licht uit"),
        ("nl", "werkbank licht uit zetten", "licht aan", "licht uit"),
        ("nl", "Maak het rolluik in de keuken naar beneden", "rolluik omhoog", "rolluik omlaag"),
        ("fr", "Comment fermer un compte joint ?", "ouvrir", "fermer"),
        ("en", "How do I unfreeze my card?", "freeze", "unfreeze"),
    ],
)
def test_the_opposite_action_ranked_first_is_offered_after_the_asked_one(
    language, question, opposite, asked, use_embeddings
):
    m, names = build(language, use_embeddings)
    result = m.match(question)
    # The ranking reads the twin that does the opposite as the better match (it shares more words) ...
    assert names[result.ranked[0].item_id] == opposite
    # ... the visitor is not told it at once: the item that does what he asked comes first among the offers.
    assert result.outcome == REWORD
    offered = [names[c.item_id] for c in result.candidates]
    assert offered[:2] == [asked, opposite]


@pytest.mark.parametrize("use_embeddings", [False, True], ids=["lexical", "embeddings"])
def test_an_input_asking_no_action_or_the_same_one_is_decided_as_before(use_embeddings):
    m, names = build("fr", use_embeddings)
    result = m.match("Comment ouvrir un compte joint ?")
    assert result.outcome == DIRECT and names[result.candidates[0].item_id] == "ouvrir"
    m, names = build("nl", use_embeddings)
    assert names[m.match("Rijbewijs verlengen").candidates[0].item_id] == "rijbewijs"


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("nl", "Schakel de ventilator in", {(0, 0)}),
        ("nl", "Wat gebeurt er in de keuken", set()),  # "in" before the end is a preposition
        ("nl", "Doe de ventilator uit in de woonkamer", {(0, 1)}),
        ("fr", "Désactive l'éclairage dans cette pièce", {(0, 1)}),
        ("fr", "Allume la lumière", {(0, 0)}),
        ("fr", "Quel est le montant maximum ?", set()),
        ("en", "I have a question on my card", set()),  # "on" before the end is a preposition
        ("en", "turn the kitchen light off", {(0, 1)}),
        ("en", "Can I unlock my account", {(2, 1)}),
        ("fr", "Comment supprimer mon compte ?", {(5, 1)}),
        ("fr", "Je veux créer un compte", {(5, 0)}),
        ("nl", "Hoe kan ik me afmelden voor de nieuwsbrief", {(6, 1)}),
        ("en", "How do I delete my account?", {(5, 1)}),
        ("en", "Can I increase my limit", {(4, 0)}),
        # Actions said in several words.
        ("nl", "alle keukensloten op slot doen", {(2, 0)}),
        ("nl", "zet de voordeur van het slot", {(2, 1)}),
        ("en", "turn off the kitchen light", {(0, 1)}),
        ("en", "How do I log out of the app", {(7, 1)}),
        # Up and down: blinds and shutters, said in a word or two.
        ("nl", "Doe het rolluik achterdeur omhoog", {(8, 0)}),
        ("nl", "Maak het rolluik in de keuken naar beneden", {(8, 1)}),
        ("nl", "Laat de screens in de woonkamer neer", {(8, 1)}),
        ("de", "Licht aus", set()),  # no word list for the language: nothing is read
    ],
)
def test_poles_read_the_action_asked(language, text, expected):
    assert poles(text, language) == frozenset(expected)


def test_stance_of_an_item_towards_the_actions_asked():
    question = "Werkbank licht uit"
    asked, about = poles(question, "nl"), subject(question, "nl")
    assert about == {"werkbank", "licht"}
    # Written as one word or two, the same thing: "waterkoker switch" and "waterkokerswitch".
    assert stance(asked, ["Zet werkbanklicht uit"], "nl", about) == AGREES
    assert stance(asked, ["Zet werkbank licht naar aan", "Doe de werkbank lamp aan"], "nl", about) == CONTRADICTS
    assert stance(asked, ["Doe de werkbank lamp uit"], "nl", about) == AGREES
    # An item written both ways (a toggle) does not contradict either.
    assert stance(asked, ["Zet de werkbank lamp aan", "Zet de werkbank lamp uit"], "nl", about) == AGREES
    # Saying the asked action about something else is no twin: "close" an account is not "close" the shop.
    assert stance(asked, ["Zet de ventilator uit"], "nl", about) == SILENT
    assert stance(asked, ["Rijbewijs verlengen"], "nl", about) == SILENT
    assert stance(frozenset(), ["Zet de lamp aan"], "nl", about) == SILENT


def test_decide_offers_the_agreeing_item_first_whatever_its_score():
    t = Thresholds(direct=0.6, reword=0.2, margin=0.0, window=0.3)
    ranked = [cand(1, 0.95), cand(2, 0.03), cand(3, 0.25)]
    outcome, offered = decide(ranked, t, stances={1: CONTRADICTS, 2: AGREES, 3: SILENT})
    assert outcome == REWORD and [c.item_id for c in offered] == [2, 1, 3]
    # A silent item under the reword threshold is not offered; without stances the best is answered.
    ranked[2] = cand(3, 0.1)
    assert [c.item_id for c in decide(ranked, t, stances={1: CONTRADICTS, 2: AGREES, 3: SILENT})[1]] == [2, 1]
    assert decide(ranked, t)[0] == DIRECT
    # Without a twin that says the asked action the best may be the same subject ("What time do you close?"
    # for the opening hours): decided as usual.
    assert decide(ranked, t, stances={1: CONTRADICTS, 2: SILENT, 3: SILENT})[0] == DIRECT


def cand(item_id, score):
    return Candidate(item_id=item_id, score=score, formulation_id=item_id, formulation_text="", matched_text="")
