"""Each context-condition operator on a dialog's variables (knowledge/conditions.py): numbers compare as
numbers, other values as text without regard to case; an absent variable satisfies only nothing."""

import pytest

from knowledge.conditions import holds


def when(operator: str, value: str = "", variable: str = "v") -> list[dict]:
    return [{"variable": variable, "operator": operator, "value": value}]


@pytest.mark.parametrize(
    ("operator", "value", "variables", "expected"),
    [
        ("defined", "", {"v": "x"}, True),
        ("defined", "", {"v": ""}, False),
        ("defined", "", {}, False),
        ("is", "pro", {"v": "PRO"}, True),
        ("is", "pro", {"v": "particulier"}, False),
        ("is", "18", {"v": "18.0"}, True),  # numbers compare numerically
        ("is", "2,5", {"v": "2.5"}, True),  # a French decimal comma
        ("contains", "lyon", {"v": "Agence de Lyon Part-Dieu"}, True),
        ("contains", "paris", {"v": "Agence de Lyon"}, False),
        ("contained", "pro; entreprise; association", {"v": "Entreprise"}, True),
        ("contained", "pro, entreprise", {"v": "particulier"}, False),
        ("contained", "10, 20", {"v": "20.0"}, True),
        ("greater", "25", {"v": "30"}, True),
        ("greater", "25", {"v": "25"}, False),
        ("greater", "9", {"v": "10"}, True),  # as numbers: 10 > 9 (as text "10" < "9")
        ("less", "9", {"v": "10"}, False),
        ("less", "25", {"v": "-3"}, True),
        ("greater", "b", {"v": "C"}, True),  # text: case-insensitive order
        ("less", "b", {"v": "A"}, True),
    ],
)
def test_each_operator(operator, value, variables, expected):
    assert holds(when(operator, value), variables) is expected


@pytest.mark.parametrize("operator", ["is", "contains", "contained", "greater", "less"])
def test_an_absent_variable_satisfies_no_comparison(operator):
    assert holds(when(operator, "x"), {}) is False
    assert holds(when(operator, "x"), {"other": "x"}) is False


def test_every_condition_of_a_set_must_hold_and_an_empty_set_holds():
    both = when("is", "pro", "client_type") + when("greater", "25", "age")
    assert holds(both, {"client_type": "pro", "age": "40"})
    assert not holds(both, {"client_type": "pro", "age": "20"})
    assert holds([], {})


def test_an_unknown_operator_never_holds():
    assert not holds(when("equals", "x"), {"v": "x"})


def test_values_that_are_not_text_are_read_as_text():
    assert holds(when("is", "3"), {"v": 3})
    assert holds(when("is", "true"), {"v": True})
