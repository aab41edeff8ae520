"""A dialog's variables: what a talk changed, and the JSON merge that stores only those changes in the
UPDATE itself, so that writers on one dialog (talks, chat/variable) never erase each other's values."""

import json

_ABSENT = object()


def changes(before: dict, after: dict) -> dict:
    """name → new value, or None for a variable that is gone; {} when nothing changed."""
    before, after = before or {}, after or {}
    changed = {name: value for name, value in after.items() if before.get(name, _ABSENT) != value}
    changed.update({name: None for name in before if name not in after})
    return changed


def merge_sql(vendor: str, column: str) -> str:
    """The SET expression that merges a change set into the stored JSON object, atomically: the row is
    locked by the UPDATE and the expression reads its latest committed value."""
    if vendor == "postgresql":
        return f"(COALESCE({column}, '{{}}'::jsonb) || %s::jsonb) - %s::text[]"
    if vendor == "sqlite":
        # RFC 7396 merge patches: a null deletes the name. The first patch removes the names whose new value
        # is an object, so that the second sets it whole (a merge patch merges objects), as jsonb's || does.
        return f"json_patch(json_patch(COALESCE({column}, '{{}}'), %s), %s)"
    raise NotImplementedError(f"Dialog variables are merged on PostgreSQL and SQLite, not {vendor}.")


def merge_params(vendor: str, changed: dict) -> list:
    if vendor == "postgresql":
        kept = {name: value for name, value in changed.items() if value is not None}
        return [json.dumps(kept, ensure_ascii=False), [name for name, value in changed.items() if value is None]]
    replaced = {name: None for name, value in changed.items() if isinstance(value, dict)}
    return [json.dumps(replaced), json.dumps(changed, ensure_ascii=False)]
