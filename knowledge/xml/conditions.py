"""Context conditions in the exchange format: <condition variable="…" operator="…" value="…"/>, one per
condition (all must hold), read and written the same way wherever conditions appear."""

# The operators of knowledge/conditions.py; the schema's conditionOperator lists the same.
OPERATORS = ("defined", "is", "contained", "contains", "greater", "less")


def condition_attributes(condition: dict) -> dict:
    """A stored condition ({"variable", "operator", "value"}) as the element's attributes."""
    attrib = {"variable": str(condition.get("variable") or ""), "operator": str(condition.get("operator") or "")}
    value = condition.get("value")
    if value not in (None, ""):
        attrib["value"] = str(value)
    return attrib


def condition_of(element) -> dict:
    """The condition a <condition> element holds, as the database stores it."""
    return {
        "variable": element.get("variable", ""),
        "operator": element.get("operator", ""),
        "value": element.get("value", ""),
    }
