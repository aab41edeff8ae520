"""Survey definitions: read one (the chatbox's configuration, the API's JSON), write one from the API's
JSON or the knowledge-base file (fields synced in place by position, so answers keep their fields)."""

import uuid as uuid_module

from django.db import transaction

from bots.models import bump_knowledge_version
from bots.servlet.errors import InvalidField, MissingField, NotFound, ServletError
from knowledge.xml.surveys import SurveyField as FieldSpec
from knowledge.xml.surveys import options_problem

from .models import Survey, SurveyField

K = SurveyField.Kind
# Kinds a survey's own fields may have; the choices below them are made from `options`.
TOP_KINDS = (K.TITLE, K.TEXT, K.LONG_TEXT, K.MULTIPLE_CHOICE, K.SELECT, K.RADIO, K.CHECKBOX)
WITH_OPTIONS = (K.MULTIPLE_CHOICE, K.SELECT)
TEXT_KINDS = (K.TEXT, K.LONG_TEXT)
# The product caps short text at 200 characters; long text gets room for a paragraph or two.
DEFAULT_MAX_LENGTH = {K.TEXT: 200, K.LONG_TEXT: 2000}
MAX_LENGTH_LIMIT = 10_000
MAX_FIELDS = 100
MAX_OPTIONS = 100


def option_kind(spec_kind: str, multiple: bool) -> str:
    """The kind of a choice under its field: list elements under a SELECT, check boxes or radio buttons."""
    if spec_kind == K.SELECT:
        return K.SELECT_OPTION
    return K.CHECKBOX if multiple else K.RADIO


def max_length_of(item) -> int | None:
    return item.max_length or DEFAULT_MAX_LENGTH.get(item.kind)


def find_survey(bot, survey_id: str | None, field_name: str = "surveyId") -> Survey:
    """The bot's survey with that id, or 404 UNKNOWN_SURVEY (a malformed id is an unknown survey)."""
    text = (survey_id or "").strip()
    if not text:
        raise MissingField(field_name)
    try:
        parsed = uuid_module.UUID(text)
    except ValueError:
        parsed = None
    survey = Survey.objects.filter(bot=bot, uuid=parsed).first() if parsed else None
    if survey is None:
        raise NotFound(f"The bot has no survey '{text[:64]}'.", code="UNKNOWN_SURVEY", surveyId=text[:64])
    return survey


def ordered_fields(survey: Survey) -> list[SurveyField]:
    """The survey's own fields in order, each with `options` (its choices, in order): one query."""
    rows = list(survey.fields.all())
    by_parent: dict[int, list[SurveyField]] = {}
    for row in rows:
        if row.parent_id:
            by_parent.setdefault(row.parent_id, []).append(row)
    top = [row for row in rows if row.parent_id is None]
    for row in top:
        row.options = by_parent.get(row.pk, [])
    return top


def configuration_values(survey: Survey, context_id: str = "") -> dict:
    """The values of surveyConfigurationResponse (client-contract.md §2.2 (19)); strings are encoded later."""

    def shape(item, order, children):
        return {
            "id": item.pk,
            "label": item.label,
            "type": item.kind,
            "mandatory": item.mandatory,
            "order": order,
            "children": children,
            "masterOf": [],
        }

    fields = [
        shape(item, order, [shape(option, index, []) for index, option in enumerate(item.options)])
        for order, item in enumerate(ordered_fields(survey))
    ]
    values = {
        "surveyId": str(survey.uuid),
        "name": survey.name,
        "title": survey.title,
        "submitValue": survey.submit_value,
        "requiredMessage": survey.required_message,
        "contextId": context_id,
        "interactionSurvey": survey.kind == Survey.Kind.OPERATOR,
        "fields": fields,
    }
    if survey.reword:
        values["reword"] = survey.reword
    return values


def survey_json(survey: Survey) -> dict:
    """A survey as the Surveys servlet group reads and writes it (plain JSON)."""
    fields = []
    for item in ordered_fields(survey):
        shown = {"id": item.pk, "type": item.kind, "label": item.label, "mandatory": item.mandatory}
        if item.kind in TEXT_KINDS:
            shown["maxLength"] = max_length_of(item)
        if item.kind in WITH_OPTIONS:
            shown["multiple"] = item.multiple
            shown["options"] = [{"id": option.pk, "label": option.label} for option in item.options]
        fields.append(shown)
    return {
        "surveyId": str(survey.uuid),
        "name": survey.name,
        "title": survey.title,
        "type": survey.kind,
        "language": survey.language,
        "submitValue": survey.submit_value,
        "requiredMessage": survey.required_message,
        "reword": survey.reword,
        "fields": fields,
        "createdAt": survey.created_at.isoformat() if survey.created_at else None,
        "updatedAt": survey.updated_at.isoformat() if survey.updated_at else None,
    }


def field_specs(raw, name: str = "fields") -> list[FieldSpec]:
    """The API's `fields` (a JSON array) as specs, every value checked; 400 naming the field at fault."""
    if not isinstance(raw, list):
        raise InvalidField(name, "expected a JSON array of fields")
    if len(raw) > MAX_FIELDS:
        raise InvalidField(name, f"at most {MAX_FIELDS} fields")
    specs = []
    for index, item in enumerate(raw):
        where = f"{name}[{index}]"
        if not isinstance(item, dict):
            raise InvalidField(where, "expected a JSON object")
        kind = str(item.get("type", "")).strip().upper()
        if kind not in TOP_KINDS:
            raise InvalidField(f"{where}.type", f"one of {', '.join(TOP_KINDS)}")
        label = _string(item.get("label", ""), f"{where}.label", 500)
        options = item.get("options", [])
        if not isinstance(options, list) or len(options) > MAX_OPTIONS:
            raise InvalidField(f"{where}.options", f"a JSON array of at most {MAX_OPTIONS} labels")
        labels = [
            _string(option.get("label", "") if isinstance(option, dict) else option, f"{where}.options", 500).strip()
            for option in options
        ]
        check_options(kind, labels, f"{where}.options")
        max_length = item.get("maxLength")
        if (
            max_length is not None
            and kind in TEXT_KINDS
            and (
                isinstance(max_length, bool)
                or not isinstance(max_length, int)
                or not 1 <= max_length <= MAX_LENGTH_LIMIT
            )
        ):
            raise InvalidField(f"{where}.maxLength", f"an integer from 1 to {MAX_LENGTH_LIMIT}")
        specs.append(
            FieldSpec(
                kind=kind,
                label=label,
                mandatory=_boolean(item.get("mandatory", False), f"{where}.mandatory") and kind != K.TITLE,
                multiple=_boolean(item.get("multiple", False), f"{where}.multiple") and kind == K.MULTIPLE_CHOICE,
                max_length=max_length if kind in TEXT_KINDS else None,
                options=labels,
            )
        )
    return specs


def sync_fields(survey: Survey, specs: list[FieldSpec]) -> None:
    """Make the survey's fields those of `specs`, keeping the rows (and their ids) at the same positions,
    so that answers already stored stay linked to their field when a survey is edited or re-imported."""
    existing = ordered_fields(survey)
    keep: set[int] = set()
    for position, spec in enumerate(specs):
        row = existing[position] if position < len(existing) else SurveyField(survey=survey)
        row.position, row.kind, row.label = position, spec.kind, spec.label
        row.mandatory, row.multiple, row.max_length = spec.mandatory, spec.multiple, spec.max_length
        row.parent = None
        row.save()
        keep.add(row.pk)
        keep.update(sync_options(row, spec.options, getattr(row, "options", [])))
    SurveyField.objects.filter(survey=survey).exclude(pk__in=keep).delete()


def sync_options(row: SurveyField, labels: list[str], existing: list[SurveyField] | None = None) -> list[int]:
    """The choices under a field, kept position by position (their ids stay); returns their ids."""
    if existing is None:
        existing = list(row.children.order_by("position", "id"))
    kept = []
    for index, label in enumerate(labels):
        option = existing[index] if index < len(existing) else SurveyField(survey_id=row.survey_id, parent=row)
        option.position, option.label = index, label
        option.kind = option_kind(row.kind, row.multiple)
        option.mandatory, option.multiple, option.max_length = False, False, None
        option.save()
        kept.append(option.pk)
    row.children.exclude(pk__in=kept).delete()
    return kept


def check_options(kind: str, labels: list[str], name: str = "options") -> None:
    """400 naming `name` when the options do not suit the field's kind (knowledge.xml.surveys says why)."""
    reason = options_problem(kind, labels)
    if reason is not None:
        raise InvalidField(name, reason)


def save_survey(bot, data: dict, survey: Survey | None = None) -> Survey:
    """Create (survey=None) or replace a survey from the API's fields; 400 for a bad value, 409 for a
    name already used in that language."""
    creating = survey is None
    survey = survey or Survey(bot=bot)
    for key, attribute, limit in (
        ("name", "name", 200),
        ("title", "title", 300),
        ("submitValue", "submit_value", 100),
        ("requiredMessage", "required_message", 300),
        ("reword", "reword", 600),
    ):
        if key in data:
            setattr(survey, attribute, _string(data[key], key, limit).strip())
    if creating and not survey.name:
        raise MissingField("name")
    if not survey.name:
        raise InvalidField("name", "must not be empty")
    if not survey.title:
        survey.title = survey.name
    if "type" in data or creating:
        kind = str(data.get("type", Survey.Kind.VISITOR)).strip().lower()
        if kind not in Survey.Kind.values:
            raise InvalidField("type", f"one of {', '.join(Survey.Kind.values)}")
        survey.kind = kind
    if "language" in data or creating:
        language = str(data.get("language") or bot.default_language).strip().lower()
        if language not in {*bot.language_codes(), bot.default_language}:
            raise InvalidField("language", "not one of the bot's languages")
        survey.language = language
    specs = field_specs(data["fields"]) if "fields" in data else None
    if creating and specs is None:
        raise MissingField("fields")
    clash = Survey.objects.filter(bot=bot, name=survey.name, language=survey.language).exclude(pk=survey.pk)
    if clash.exists():
        raise ServletError(
            f"The bot already has a survey named '{survey.name}' in '{survey.language}'.",
            code="SURVEY_EXISTS",
            status=409,
        )
    with transaction.atomic():
        survey.save()
        if specs is not None:
            sync_fields(survey, specs)
    return survey


def delete_survey(survey: Survey) -> None:
    """Deletes the survey with its answers; answers of the knowledge that offered it offer it no more."""
    with transaction.atomic():
        linked = survey.knowledge_answers.exists()
        survey.delete()
        if linked:
            # The knowledge snapshot holds the answers with their link: rebuild it.
            bump_knowledge_version(survey.bot_id)


def _string(value, name: str, limit: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise InvalidField(name, "expected text")
    text = str(value)
    if len(text) > limit:
        raise InvalidField(name, f"at most {limit} characters")
    return text


def _boolean(value, name: str) -> bool:
    if isinstance(value, bool):
        return value
    lowered = str(value).strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off", "", "null"):
        return False
    raise InvalidField(name, "true or false")
