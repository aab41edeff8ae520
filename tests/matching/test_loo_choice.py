"""bench/matching_loo.py: the visitor's cost per question, the choice made on the other corpora (ties go to fewer
wrong direct answers), and the calibration's constants put back after a trial."""

import pytest

from bench import matching_loo
from knowledge.matching import calibration


def shares(**kw):
    s = dict.fromkeys(("direct_wrong", "reword_first", "reword_any", "reword_none", "missed"), 0.0)
    s.update(answerable=100, oos=0)
    s.update(kw)
    return s


def test_visitor_cost_counts_each_outcome_and_out_of_scope_questions():
    assert matching_loo.visitor_cost(shares()) == 0.0  # every question answered right at once
    assert matching_loo.visitor_cost(shares(direct_wrong=0.1, reword_first=0.2, missed=0.05)) == pytest.approx(
        2.0 * 0.1 + 0.5 * 0.2 + 2.0 * 0.05
    )
    # 100 answerable at cost 0, 50 out of scope: 20 % answered (2.0), 40 % reworded (1.25), 40 % rejected (0).
    s = shares(oos=50, oos_direct=0.2, oos_recall=0.4)
    assert matching_loo.visitor_cost(s) == pytest.approx(50 * (0.2 * 2.0 + 0.4 * 1.25) / 150)


def run(cost, wrong):
    return {"full": {"cost": cost, "direct_wrong": wrong}, "held-out": {"cost": cost, "direct_wrong": 0.0}}


def test_choice_on_the_others_with_ties_to_fewer_wrong_answers():
    a, b, c = (2.0, 0.25), (3.0, 0.25), (1.5, 0.125)
    results = {
        ("x", a): run(0.40, 0.02),
        ("x", b): run(0.30, 0.05),
        ("x", c): run(0.401, 0.01),
        ("y", a): run(0.20, 0.02),
        ("y", b): run(0.50, 0.05),
        ("y", c): run(0.2005, 0.01),
        ("left out", a): run(9.0, 0.0),  # never read when choosing for it
        ("left out", b): run(0.0, 0.0),
        ("left out", c): run(9.0, 0.0),
    }
    # a and c are within TIE of each other on x and y; c gives fewer wrong direct answers.
    assert matching_loo.choose(results, ["x", "y"], [a, b, c]) == c
    assert matching_loo.choose(results, ["x"], [a, b, c]) == b


def test_trial_constants_are_put_back():
    before = calibration.MISSED_PROBE["embeddings"], calibration.OOS_WEIGHT["embeddings"]
    with pytest.raises(RuntimeError), matching_loo.utility(9.0, 0.9):
        assert calibration.MISSED_PROBE["embeddings"] == 9.0 and calibration.OOS_WEIGHT["embeddings"] == 0.9
        raise RuntimeError
    assert (calibration.MISSED_PROBE["embeddings"], calibration.OOS_WEIGHT["embeddings"]) == before
