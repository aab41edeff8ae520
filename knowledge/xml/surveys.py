"""Surveys in the exchange format: the <survey> unit of the <surveys> section (a survey with its
ordered fields, a choice field's options as <option> children), read into records and written back.

    <survey uuid="…" name="satisfaction" language="fr" title="Votre avis" submitValue="Envoyer"
            requiredMessage="Merci de répondre." [type="operator"] [reword="…"]>
      <field type="MULTIPLE_CHOICE" label="Satisfait ?" mandatory="true" [multiple="true"]>
        <option>Oui</option><option>Non</option>
      </field>
      <field type="TEXT" label="Votre nom" maxLength="50"/>
    </survey>

An answer names the survey it carries with survey="<uuid>" (a survey of the same file)."""

from dataclasses import dataclass, field

# The field kinds whose choices are its <option> children (dialogs/surveys/definitions.py WITH_OPTIONS).
WITH_OPTIONS = ("MULTIPLE_CHOICE", "SELECT")
TEXT_KINDS = ("TEXT", "LONG_TEXT")
_TRUE = {"true", "1"}


@dataclass(slots=True)
class SurveyField:
    """A field as the file, the API and the back office give it (dialogs/surveys/definitions.py syncs it)."""

    kind: str
    label: str = ""
    mandatory: bool = False
    multiple: bool = False
    max_length: int | None = None
    options: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Survey:
    uuid: str
    name: str
    language: str
    kind: str = "visitor"
    title: str = ""
    submit_value: str = ""
    required_message: str = ""
    reword: str = ""
    fields: list[SurveyField] = field(default_factory=list)


def read(element) -> Survey:
    survey = Survey(
        uuid=element.get("uuid", "").lower(),
        name=element.get("name", ""),
        language=element.get("language", ""),
        kind=element.get("type", "visitor"),
        title=element.get("title", ""),
        submit_value=element.get("submitValue", ""),
        required_message=element.get("requiredMessage", ""),
        reword=element.get("reword", ""),
    )
    for child in element.iterchildren("field"):
        max_length = child.get("maxLength")
        survey.fields.append(
            SurveyField(
                kind=child.get("type", ""),
                label=child.get("label", ""),
                mandatory=child.get("mandatory", "").strip() in _TRUE,
                multiple=child.get("multiple", "").strip() in _TRUE,
                max_length=int(max_length) if max_length and max_length.strip().isdigit() else None,
                options=[option.text or "" for option in child.iterchildren("option")],
            )
        )
    return survey


def options_problem(kind: str, labels: list[str]) -> str | None:
    """A choice field needs options, none empty, no two alike; other fields have none (the API, the back
    office and the file all check it here)."""
    if kind in WITH_OPTIONS:
        if not labels or not all(label.strip() for label in labels):
            return f"a {kind} field needs at least one option, none empty"
        if len({label.strip() for label in labels}) != len(labels):
            return "two options have the same label"
    elif labels:
        return f"only {' and '.join(WITH_OPTIONS)} fields have options"
    return None


def problem(survey: Survey) -> tuple[int, str] | None:
    """What the schema cannot say about a survey: (index of the field at fault, reason), or None."""
    for index, item in enumerate(survey.fields):
        reason = options_problem(item.kind, item.options)
        if reason is None and item.max_length is not None and item.kind not in TEXT_KINDS:
            reason = f"maxLength is only for {' and '.join(TEXT_KINDS)} fields"
        if reason is not None:
            return index, reason[0].upper() + reason[1:] + "."
    return None


def write(writer, survey: Survey) -> None:
    attrib = {"uuid": survey.uuid, "name": survey.name, "language": survey.language}
    if survey.kind != "visitor":
        attrib["type"] = survey.kind
    attrib.update(title=survey.title, submitValue=survey.submit_value, requiredMessage=survey.required_message)
    if survey.reword:
        attrib["reword"] = survey.reword
    writer._start("survey", attrib)
    for item in survey.fields:
        shown = {"type": item.kind}
        if item.label:
            shown["label"] = item.label
        if item.mandatory:
            shown["mandatory"] = "true"
        if item.multiple:
            shown["multiple"] = "true"
        if item.max_length is not None:
            shown["maxLength"] = item.max_length
        if item.options:
            writer._start("field", shown)
            for option in item.options:
                writer._leaf("option", None, option)
            writer._end()
        else:
            writer._leaf("field", shown)
    writer._end()
