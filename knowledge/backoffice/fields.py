"""Friendlier form fields for what is stored as JSON: pretty and checked JSON with a textarea that fits
its content, and a matching group's members as one per line."""

import json

from django import forms
from django.utils.translation import gettext_lazy as _
from unfold.widgets import UnfoldAdminTextareaWidget

MAX_ROWS = 14


class FittingTextarea(UnfoldAdminTextareaWidget):
    """A textarea as tall as its text (up to MAX_ROWS lines), so short values stay one or two lines."""

    def __init__(self, attrs=None, min_rows: int = 2):
        super().__init__(attrs)
        self.min_rows = min_rows

    def get_context(self, name, value, attrs):
        lines = str(value or "").count("\n") + 1
        attrs = {**(attrs or {}), "rows": max(self.min_rows, min(MAX_ROWS, lines)), "spellcheck": "false"}
        return super().get_context(name, value, attrs)


def _flat(value) -> bool:
    values = value.values() if isinstance(value, dict) else value
    return isinstance(value, (dict, list)) and all(not isinstance(v, (dict, list)) for v in values)


def pretty(value) -> str:
    """Lists of plain values, or of one flat object, stay on one line ([12, 13]); a list of flat objects
    (conditions) gets one object per line; other objects one key per line."""
    if value in ({}, []) or (isinstance(value, list) and (_flat(value) or (len(value) == 1 and _flat(value[0])))):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list) and all(isinstance(v, dict) and _flat(v) for v in value):
        rows = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
        return "[\n" + rows + "\n]"
    return json.dumps(value, ensure_ascii=False, indent=2)


class PrettyJSONField(forms.JSONField):
    """JSON shown indented and checked on save (Django's JSONField refuses what does not parse)."""

    widget = FittingTextarea
    default_error_messages = {"invalid": _("Not valid JSON: check the quotes, commas and brackets.")}

    def prepare_value(self, value):
        if isinstance(value, forms.fields.InvalidJSONInput):
            return value
        if value is None:  # an empty optional field shows empty, never the word null
            return ""
        return pretty(value)

    def has_changed(self, initial, data):
        try:
            return self.to_python(data) != initial
        except forms.ValidationError:
            return True


class MemberListField(forms.Field):
    """A matching group's members, one per line (empty lines and repeats dropped, order kept)."""

    widget = FittingTextarea

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "help_text",
            _("One word or phrase per line. {Other group} on a line brings in that group's members."),
        )
        super().__init__(**kwargs)

    def prepare_value(self, value):
        if isinstance(value, (list, tuple)):
            return "\n".join(str(v) for v in value)
        return value or ""

    def to_python(self, value):
        lines = [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value or "").splitlines()
        return list(dict.fromkeys(line.strip() for line in lines if line.strip()))

    def validate(self, value):
        if self.required and not value:
            raise forms.ValidationError(_("A group needs at least one member."), code="required")
        too_long = [member for member in value if len(member) > 500]
        if too_long:
            raise forms.ValidationError(
                _("A member is longer than 500 characters: %(m)s…"), params={"m": too_long[0][:40]}
            )

    def has_changed(self, initial, data):
        return self.to_python(initial) != self.to_python(data)
