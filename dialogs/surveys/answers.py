"""A visitor's answers to a survey: read from any of the chatbox's forms, checked against the survey
(mandatory fields, allowed options, lengths), then stored in one transaction; a refusal stores nothing."""

import json
import re

from django.db import transaction
from django.utils import timezone

from bots.servlet.errors import InvalidField, MissingField
from bots.servlet.params import parse_json

from .definitions import TEXT_KINDS, WITH_OPTIONS, K, max_length_of, ordered_fields
from .models import Survey, SurveyAnswer, SurveyAnswerValue

FIELD_KEY = re.compile(r"^field_(\d{1,18})$")
# Check boxes answered in one value (the spec's form may send them joined).
SEPARATORS = re.compile(r"\s*[|;]\s*")


def form_values(data: dict[str, str]) -> dict[int, list[str]]:
    """`field_<id>=<value>` pairs (the chatbox's form, client-contract.md §2.2 (20))."""
    found: dict[int, list[str]] = {}
    for key, value in data.items():
        match = FIELD_KEY.match(key)
        if match:
            found.setdefault(int(match.group(1)), []).append(value)
    return found


def json_values(raw: str | dict | None, name: str = "fields") -> dict[int, list[str]]:
    """The spec's `fields` ({id: value}, a value may be a list of check-box labels), as JSON text or object."""
    if raw in (None, "", "null"):
        return {}
    fields = parse_json(name, raw) if isinstance(raw, str) else raw
    if not isinstance(fields, dict):
        raise InvalidField(name, "expected a JSON object {fieldId: value}")
    found: dict[int, list[str]] = {}
    for key, value in fields.items():
        match = FIELD_KEY.match(str(key)) or re.match(r"^(\d{1,18})$", str(key))
        if not match:
            raise InvalidField(f"{name}.{str(key)[:40]}", "not a field id")
        values = value if isinstance(value, list) else [value]
        cleaned = []
        for item in values:
            if isinstance(item, (dict, list)):
                raise InvalidField(f"field_{match.group(1)}", "expected text")
            if item is None:
                continue
            cleaned.append("true" if item is True else "false" if item is False else str(item))
        found.setdefault(int(match.group(1)), []).extend(cleaned)
    return found


def submit(
    survey: Survey,
    dialog,
    answered: dict[int, list[str]],
    *,
    transport: str,
    operator: str = "",
    interaction_survey: bool = False,
) -> SurveyAnswer:
    """Checks the answers against the survey, then stores them (one SurveyAnswer, a value per answer)."""
    rows = _checked_values(ordered_fields(survey), answered)
    with transaction.atomic():
        stored = SurveyAnswer.objects.create(
            survey=survey,
            dialog=dialog,
            created_at=timezone.now(),
            transport=transport,
            operator=operator[:200],
            interaction_survey=interaction_survey,
        )
        SurveyAnswerValue.objects.bulk_create(
            [SurveyAnswerValue(answer=stored, field=item, label=item.label, value=value) for item, value in rows]
        )
    return stored


def _checked_values(fields, answered: dict[int, list[str]]):
    """(field, value) rows to store; 400 naming `field_<id>` for the first answer that breaks a rule."""
    by_option = {option.pk: item for item in fields for option in item.options}
    known = {item.pk for item in fields}
    given: dict[int, list[str]] = {}
    for field_id, values in answered.items():
        values = [value for value in values if value.strip() and value.strip().lower() not in ("null", "undefined")]
        if field_id in by_option:
            # A check box answered on its own (field_<optionId>=<its label or true>): an answer of its field.
            owner = by_option[field_id]
            option = next(option for option in owner.options if option.pk == field_id)
            if values and values[0].strip().lower() not in ("false", "0", "off"):
                given.setdefault(owner.pk, []).append(option.label)
        elif field_id in known:
            given.setdefault(field_id, []).extend(values)
        else:
            raise InvalidField(f"field_{field_id}", "this survey has no such field")
    rows = []
    for item in fields:
        name = f"field_{item.pk}"
        values = given.get(item.pk, [])
        if item.kind == K.TITLE:
            continue
        if not values:
            if item.mandatory:
                raise MissingField(name)
            continue
        if item.kind in WITH_OPTIONS:
            rows.extend((item, label) for label in _chosen(item, values, name))
        elif item.kind in TEXT_KINDS:
            if len(values) > 1:
                raise InvalidField(name, "one answer expected")
            limit = max_length_of(item)
            if limit and len(values[0]) > limit:
                raise InvalidField(name, f"at most {limit} characters")
            rows.append((item, values[0]))
        else:  # a lone RADIO or CHECKBOX: checked or not
            rows.append((item, values[0][:200]))
    return rows


def _chosen(item, values: list[str], name: str) -> list[str]:
    labels = {option.label: option.label for option in item.options}
    folded = {label.strip().casefold(): label for label in labels}
    chosen: list[str] = []
    for value in values:
        parts = [value]
        if value.strip().casefold() not in folded and item.multiple:
            parts = [part for part in SEPARATORS.split(value) if part]
            if len(parts) == 1 and value.startswith("["):
                try:
                    parsed = json.loads(value)
                    parts = [str(part) for part in parsed] if isinstance(parsed, list) else parts
                except ValueError:
                    pass
        for part in parts:
            label = folded.get(part.strip().casefold())
            if label is None:
                raise InvalidField(name, f"'{part[:60]}' is not one of its options")
            if label not in chosen:
                chosen.append(label)
    if len(chosen) > 1 and not (item.kind == K.MULTIPLE_CHOICE and item.multiple):
        raise InvalidField(name, "only one option may be chosen")
    return chosen
