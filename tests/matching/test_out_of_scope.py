"""Out-of-scope rejection with held-out intents: an item removed from a small French or Dutch bot, a question
it answered is "misunderstood" in the default configuration (and answered when the item is there). Lexical-only
keeps its priors (MatcherConfig.calibrates), which do not reject these: the issue's lexical target is open."""

import pytest
from calibration_bots import DUTCH, FRENCH, entries

from knowledge.matching import Matcher, MatcherConfig

CASES = [
    pytest.param("fr", FRENCH, 5, "impossible de me connecter", id="french-password"),
    pytest.param("fr", FRENCH, 8, "code promo refuse", id="french-promo-code"),
    pytest.param("nl", DUTCH, 5, "open zaterdag?", id="dutch-opening-hours"),
]


@pytest.mark.parametrize("language, bot, item, question", CASES)
def test_a_question_of_a_held_out_intent_is_misunderstood(language, bot, item, question):
    config = MatcherConfig(use_embeddings=True)
    whole = Matcher.build(language, entries(bot), config=config)
    answered = whole.match(question)
    assert answered.outcome == "direct" and answered.best.item_id == item  # a question the item answers
    without = Matcher.build(language, entries(bot, without={item}), config=config)
    assert without.calibrated is not None
    res = without.match(question)
    assert res.outcome == "misunderstood", [(c.item_id, c.score) for c in res.ranked]
    assert res.candidates == []
