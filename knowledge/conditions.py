"""Context conditions: whether a set of conditions on a dialog's variables holds.

A condition is {"variable": name, "operator": one of OPERATORS, "value": text}; a set holds when every
condition holds (an empty set always holds). Values compare as numbers when both sides read as numbers
("18", "18.5", "18,5"), else as text, case-insensitively.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation

# The operators of the back office's condition list, in the product's words.
OPERATORS = {
    "defined": "is defined",
    "is": "is",
    "contained": "is contained",
    "contains": "contains",
    "greater": "greater than",
    "less": "less than",
}

# "is contained" reads its value as a list of items separated by one of these.
LIST_SEPARATORS = (";", ",", "\n", "|")


def holds(conditions: list[dict], variables: dict) -> bool:
    """True when every condition holds on `variables` ([] holds)."""
    return all(condition_holds(condition, variables) for condition in conditions or ())


def condition_holds(condition: dict, variables: dict) -> bool:
    """One condition; a variable that is absent (or empty) satisfies no operator but none."""
    operator = condition.get("operator")
    current = as_text(variables.get(condition.get("variable") or ""))
    if operator == "defined":
        return current != ""
    if current == "":
        return False
    expected = as_text(condition.get("value"))
    if operator == "is":
        return compare(current, expected) == 0
    if operator == "contains":
        return expected.casefold() in current.casefold()
    if operator == "contained":
        return any(compare(current, item) == 0 for item in list_items(expected))
    if operator == "greater":
        return compare(current, expected) > 0
    if operator == "less":
        return compare(current, expected) < 0
    # An unknown operator never holds: a misspelt condition must not open a branch.
    return False


def compare(left: str, right: str) -> int:
    """-1, 0 or 1: numerically when both read as numbers, else as case-insensitive text."""
    a, b = as_number(left), as_number(right)
    if a is None or b is None:
        a, b = left.strip().casefold(), right.strip().casefold()
    return (a > b) - (a < b)


def as_number(text: str) -> Decimal | None:
    """The number `text` reads as ("18", "-2.5", "2,5"), or None."""
    candidate = text.strip().replace(" ", "")
    if "," in candidate and "." not in candidate and candidate.count(",") == 1:
        candidate = candidate.replace(",", ".")  # a French decimal comma
    try:
        number = Decimal(candidate)
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def as_text(value) -> str:
    """A variable's value as text (None → "", JSON values → their JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def list_items(text: str) -> list[str]:
    """The items of an "is contained" value: split on the first separator it uses."""
    for separator in LIST_SEPARATORS:
        if separator in text:
            return [item.strip() for item in text.split(separator) if item.strip()]
    return [text.strip()] if text.strip() else []


def first_holding(branches, variables: dict):
    """The first branch (anything with `conditions`), in priority order, whose conditions all hold; or None."""
    for branch in branches:
        if holds(list(branch.conditions), variables):
            return branch
    return None
