"""The Surveys servlet group (create, edit, list, read, delete a bot's surveys; their results) and the
chatbox's two survey calls: chat/survey/configuration (§2.2 (19)) and chat/survey (§2.2 (20)).

Survey management needs a token: any role of the bot's account reads (knowledge.read), editors and
administrators write (knowledge.edit). The chat calls are the visitor's, like every chat call."""

import re

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers

from accounts.servlet import ProtectedView, permitted_bot
from bots.servlet.envelope import plain_json
from bots.servlet.errors import MissingField, NotFound
from bots.servlet.params import CONTEXT_ID, ServletParams, parse_json
from bots.servlet.schema import (
    B64,
    BOOLEAN,
    INTEGER,
    OBJECT,
    PROTECTED_RESOURCE_ERRORS,
    chat_call,
    envelope_schema,
    plain_schema,
    responses,
)
from bots.servlet.views import get_bot
from dialogs import contexts
from dialogs.api.views import ChatView

from . import answers, definitions, results
from .models import Survey

SURVEYS = ["Surveys"]
# The chatbox's answer form is not percent-encoded: its fields start only at these names.
ANSWER_KEYS = re.compile(
    r"ctx|uuid|surveyId|contextId|contextUUID|contextUuid|solutionUsed|fields|language|field_\d{1,18}"
)
SURVEY_JSON = plain_schema(
    OBJECT,
    "The survey: surveyId, name, title, type, language, submitValue, "
    "requiredMessage, reword, fields [{id, type, label, mandatory, maxLength | multiple, options}].",
)


def _text(help_text: str = "", required: bool = False):
    return serializers.CharField(required=required, allow_blank=not required, help_text=help_text)


FIELD_HELP = (
    "A JSON array of fields in order: {type: TITLE | TEXT | LONG_TEXT | MULTIPLE_CHOICE | SELECT | RADIO | CHECKBOX, "
    "label, mandatory, maxLength (TEXT, LONG_TEXT; default 200 and 2000), multiple (MULTIPLE_CHOICE: check boxes "
    "instead of radio buttons), options: [labels] (MULTIPLE_CHOICE, SELECT)}. On an edit, fields keep their ids "
    "position by position."
)
SURVEY_FORM = inline_serializer(
    "SurveyForm",
    {
        "name": _text("Internal name (unique per language)."),
        "title": _text("Shown above the survey (default: the name)."),
        "type": serializers.ChoiceField(["visitor", "operator"], required=False, help_text="Default visitor."),
        "language": _text("One of the bot's languages (default: its default language)."),
        "submitValue": _text("The submit button's label."),
        "requiredMessage": _text("Shown under a mandatory field left empty."),
        "reword": _text("A question the chatbox sends for the visitor after the survey."),
        "fields": serializers.JSONField(required=False, help_text=FIELD_HELP),
    },
)
CONFIGURATION_FORM = inline_serializer(
    "SurveyConfigurationForm",
    {
        "surveyId": _text("The survey's id (the `survey` value of an answer).", required=True),
        "contextUuid": _text("The context id (also contextId, contextUUID, ctx)."),
        "language": _text(),
        "solutionUsed": _text(),
    },
)
ANSWER_FORM = inline_serializer(
    "SurveyAnswerForm",
    {
        "uuid": _text("The survey's id (also surveyId).", required=True),
        "ctx": _text("The context id (also contextUuid, contextId, contextUUID).", required=True),
        "field_<id>": _text(
            "One per answered field: its text, or the label of the chosen option (repeat the "
            "field, or send field_<optionId>, for several check boxes)."
        ),
        "fields": _text('The spec\'s form instead: a JSON object {"<fieldId>": value or [labels]}.'),
        "solutionUsed": _text(),
    },
)
FIELD_VALUES = {
    "type": "object",
    "properties": {
        "id": INTEGER,
        "label": B64,
        "type": B64,
        "mandatory": BOOLEAN,
        "order": INTEGER,
        "children": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        "masterOf": {"type": "array", "items": INTEGER},
    },
}
CONFIGURATION_ANSWER = envelope_schema(
    "surveyConfigurationResponse",
    {
        "surveyId": B64,
        "name": B64,
        "title": B64,
        "submitValue": B64,
        "requiredMessage": B64,
        "contextId": B64,
        "reword": B64,
        "interactionSurvey": BOOLEAN,
        "fields": {"type": "array", "items": FIELD_VALUES},
    },
    required=("surveyId", "name", "title", "submitValue", "requiredMessage", "contextId", "fields"),
)
SURVEY_ANSWER = envelope_schema(
    "surveyResponse", {"surveyId": B64, "contextId": B64, "answerId": INTEGER}, required=("surveyId", "answerId")
)
MANAGE_ERRORS = PROTECTED_RESOURCE_ERRORS


def survey_data(params: ServletParams) -> dict:
    """The survey's fields as the request gives them (form, query string or JSON body)."""
    data = {}
    for key in ("name", "title", "type", "language", "submitValue", "requiredMessage", "reword"):
        value = params.raw(key)
        if value is not None and value.strip() not in ("null", "undefined"):
            data[key] = value
    fields = params.text("fields").strip()
    if fields:
        data["fields"] = parse_json("fields", fields)
    return data


# ------------------------------------------------------------------------------------------- chat


@chat_call("A survey's configuration, as the chatbox shows it", form=CONFIGURATION_FORM, ok={200: CONFIGURATION_ANSWER})
class SurveyConfigurationView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        survey = definitions.find_survey(bot, params.text("surveyId", "uuid"))
        dialog = contexts.known_dialog(bot, params.text(*CONTEXT_ID))
        values = definitions.configuration_values(survey, str(dialog.uuid) if dialog else "")
        return self.envelope("surveyConfigurationResponse", values)


@chat_call(
    "Send a visitor's answers to a survey (the chatbox's raw form ctx / uuid / field_<id>, or the spec's "
    "contextUuid / surveyId / fields); checked, then stored with the dialog",
    form=ANSWER_FORM,
    ok={200: SURVEY_ANSWER},
)
class SurveyAnswerView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        if not hasattr(request, "_servlet_params"):
            request._servlet_params = ServletParams.from_request(request, unencoded_keys=ANSWER_KEYS)
        params = self.params(request)
        survey = definitions.find_survey(bot, params.text("uuid", "surveyId"), "uuid")
        context_id = params.text(*CONTEXT_ID)
        if not context_id:
            raise MissingField("ctx")
        dialog = contexts.known_dialog(bot, context_id)
        if dialog is None:
            raise NotFound(f"No dialog has the context id '{context_id[:64]}'.", code="UNKNOWN_CONTEXT")
        given = answers.form_values(params.data)
        for field_id, values in answers.json_values(params.text("fields")).items():
            given.setdefault(field_id, []).extend(values)
        stored = answers.submit(
            survey,
            dialog,
            given,
            transport="rest",
            interaction_survey=params.boolean("interactionSurveyAnswer"),
        )
        return self.envelope(
            "surveyResponse", {"surveyId": str(survey.uuid), "contextId": str(dialog.uuid), "answerId": stored.pk}
        )


# --------------------------------------------------------------------------------- management


def _survey_of(request, bot_uuid, survey_id, action):
    bot, user = permitted_bot(request, bot_uuid, action)
    return definitions.find_survey(bot, survey_id), user


@extend_schema(
    tags=SURVEYS,
    summary="List the bot's surveys",
    request=None,
    responses=responses({200: plain_schema(OBJECT, "{botUUID, surveys: [survey…]}")}, *MANAGE_ERRORS),
)
class SurveysView(ProtectedView):
    def get(self, request, bot_uuid):
        bot, _ = permitted_bot(request, bot_uuid, "knowledge.read")
        surveys = Survey.objects.filter(bot=bot).prefetch_related("fields")
        return plain_json({"botUUID": str(bot.uuid), "surveys": [definitions.survey_json(s) for s in surveys]})

    @extend_schema(
        tags=SURVEYS,
        summary="Create a survey",
        request=SURVEY_FORM,
        responses=responses({201: SURVEY_JSON}, *MANAGE_ERRORS, 409),
    )
    def post(self, request, bot_uuid):
        bot, _ = permitted_bot(request, bot_uuid, "knowledge.edit")
        survey = definitions.save_survey(bot, survey_data(self.params(request)))
        return plain_json(definitions.survey_json(survey), status=201)


@extend_schema(
    tags=SURVEYS, summary="Read one survey", request=None, responses=responses({200: SURVEY_JSON}, *MANAGE_ERRORS)
)
class SurveyView(ProtectedView):
    def get(self, request, bot_uuid, survey_id):
        survey, _ = _survey_of(request, bot_uuid, survey_id, "knowledge.read")
        return plain_json(definitions.survey_json(survey))

    @extend_schema(
        tags=SURVEYS,
        summary="Edit a survey (only the fields given change; `fields` replaces them all)",
        request=SURVEY_FORM,
        responses=responses({200: SURVEY_JSON}, *MANAGE_ERRORS, 409),
    )
    def put(self, request, bot_uuid, survey_id):
        survey, _ = _survey_of(request, bot_uuid, survey_id, "knowledge.edit")
        survey = definitions.save_survey(survey.bot, survey_data(self.params(request)), survey)
        return plain_json(definitions.survey_json(survey))

    @extend_schema(
        tags=SURVEYS,
        summary="Delete a survey and its answers",
        request=None,
        responses=responses({200: plain_schema(OBJECT, "{surveyId, deleted: true}")}, *MANAGE_ERRORS),
    )
    def delete(self, request, bot_uuid, survey_id):
        survey, _ = _survey_of(request, bot_uuid, survey_id, "knowledge.edit")
        survey_uuid = str(survey.uuid)
        definitions.delete_survey(survey)
        return plain_json({"surveyId": survey_uuid, "deleted": True})


@extend_schema(
    tags=SURVEYS,
    summary="A survey's results: answers counted per option, text answers listed",
    request=None,
    responses=responses(
        {200: plain_schema(OBJECT, "{surveyId, answers, fields: [{id, label, type, counts | texts}]}")}, *MANAGE_ERRORS
    ),
)
class SurveyResultsView(ProtectedView):
    def get(self, request, bot_uuid, survey_id):
        survey, _ = _survey_of(request, bot_uuid, survey_id, "knowledge.read")
        return plain_json(results.results_json(survey))
