"""Per-bot calibration (knowledge/matching/calibration.py) on a small French and a small Dutch bot built here:
fitted at build from the bot's own formulations, blended with the priors, in the background on large bots."""

import pytest
from calibration_bots import DUTCH, FRENCH, entries

from knowledge.matching import Matcher, MatcherConfig, calibration
from knowledge.matching.decide import CALIBRATION, TUNED

# Lexical-only keeps the priors (MatcherConfig.calibrates): see test_lexical_only_keeps_the_priors.
CONFIGS = [pytest.param(True, id="default")]
BOTS = [pytest.param("fr", FRENCH, id="french"), pytest.param("nl", DUTCH, id="dutch")]


def _build(language, bot, use_embeddings, **settings):
    return Matcher.build(language, entries(bot), config=MatcherConfig(use_embeddings=use_embeddings, **settings))


@pytest.mark.parametrize("use_embeddings", CONFIGS)
@pytest.mark.parametrize("language, bot", BOTS)
def test_a_small_bot_is_calibrated_at_build_from_its_own_formulations(language, bot, use_embeddings):
    m = _build(language, bot, use_embeddings)
    mode = m.config.mode
    fitted = m.calibrated
    assert fitted is not None and m.ready.is_set()
    # Three rounds of one held-out formulation per item (8 items of 5 formulations).
    assert fitted.probes == 3 * len(bot)
    assert fitted.weight == pytest.approx(fitted.probes / (fitted.probes + calibration.PRIOR_PROBES), abs=1e-3)
    # The matcher decides with the fitted values, not with the BANKING77 priors.
    assert (m.calibration, m.thresholds) == (fitted.calibration, fitted.thresholds)
    assert m.calibration != CALIBRATION[mode]
    assert (m.thresholds.direct, m.thresholds.reword) != (TUNED[mode].direct, TUNED[mode].reword)
    assert 0.0 < m.thresholds.reword < m.thresholds.direct < 1.0
    # The bot's own answers still come first and directly.
    for item, texts in bot.items():
        res = m.match(texts[0])
        assert res.outcome == "direct" and res.best.item_id == item, texts[0]


@pytest.mark.parametrize("use_embeddings", CONFIGS)
def test_french_and_dutch_bots_get_their_own_thresholds(use_embeddings):
    french = _build("fr", FRENCH, use_embeddings)
    dutch = _build("nl", DUTCH, use_embeddings)
    assert french.calibration != dutch.calibration


@pytest.mark.parametrize("use_embeddings", CONFIGS)
def test_the_priors_weigh_less_as_the_bot_grows(use_embeddings):
    small = _build("fr", FRENCH, use_embeddings)
    # Twice the items (the Dutch bot's beside the French one's): one probe per item and round, twice the probes.
    bigger = {**FRENCH, **{item + 10: texts for item, texts in DUTCH.items()}}
    large = _build("fr", bigger, use_embeddings)
    assert large.calibrated.probes > small.calibrated.probes
    assert large.calibrated.weight > small.calibrated.weight


@pytest.mark.parametrize("use_embeddings", CONFIGS)
def test_thresholds_set_in_the_configuration_stay_as_set(use_embeddings):
    m = _build("nl", DUTCH, use_embeddings, direct_threshold=0.9, reword_threshold=0.33)
    assert m.calibrated is not None
    assert (m.thresholds.direct, m.thresholds.reword) == (0.9, 0.33)
    assert m.calibration == m.calibrated.calibration


@pytest.mark.parametrize("use_embeddings", CONFIGS)
def test_switched_off_the_priors_serve(use_embeddings):
    m = _build("fr", FRENCH, use_embeddings, calibrate=False)
    assert m.calibrated is None
    assert m.calibration == CALIBRATION[m.config.mode] and m.thresholds == TUNED[m.config.mode]


def test_a_bot_too_small_keeps_the_priors():
    # Items of two formulations: none can give one away and keep two, so there is nothing to calibrate on.
    tiny = {item: texts[:2] for item, texts in FRENCH.items()}
    m = _build("fr", tiny, False)
    assert m.calibrated is None and m.thresholds == TUNED["lexical"]
    assert m.match("Où en est ma commande ?").best.item_id == 1


@pytest.mark.parametrize("use_embeddings", CONFIGS)
def test_a_large_bot_is_calibrated_in_the_background_and_answers_meanwhile(use_embeddings):
    # sync_calibration_rows=0: this bot counts as large; the build returns at once with the priors.
    m = _build("nl", DUTCH, use_embeddings, sync_calibration_rows=0)
    assert m.match("Onze kliko is gestolen").best.item_id == 8  # answers before the calibration is done
    assert m.wait_ready(timeout=60)
    assert m.calibrated is not None and m.thresholds == m.calibrated.thresholds
    same = _build("nl", DUTCH, use_embeddings)
    assert m.calibrated == same.calibrated  # the same fit as inside the build


@pytest.mark.parametrize("language, bot", BOTS)
def test_lexical_only_keeps_the_priors(language, bot):
    m = _build(language, bot, False)
    assert m.calibrated is None and m.ready.is_set()
    assert (m.calibration, m.thresholds) == (CALIBRATION["lexical"], TUNED["lexical"])
    for item, texts in bot.items():
        res = m.match(texts[0])
        assert res.outcome == "direct" and res.best.item_id == item, texts[0]
