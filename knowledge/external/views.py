"""External matchers servlet group: the bot's knowledge as Rasa NLU training data (export, the mirror's
status) and a Rasa NLU file as knowledge (import). Thin views: who asks, which language, then
rasa_export / mirror / rasa_reader + rasa_import.

Rights (accounts.permissions): export and status need knowledge.read (every role: it is the knowledge
export in another format); import needs knowledge.edit (administrators and editors).
"""

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from accounts.servlet import permitted_bot
from bots.models import language_code
from bots.servlet.envelope import plain_json
from bots.servlet.errors import InvalidField
from bots.servlet.limits import limit_for
from bots.servlet.params import ServletParams, query_fields
from bots.servlet.schema import BOOLEAN, INTEGER, OBJECT, PROTECTED_RESOURCE_ERRORS, plain_schema, responses
from bots.servlet.views import ServletView

from ..api.uploads import received_file
from ..api.views import attachment, download_name
from . import mirror
from .rasa_export import nlu_file
from .rasa_import import import_nlu
from .rasa_reader import read_nlu

TAGS = ["External matchers"]
YAML = "application/yaml"
YAML_TYPES = (YAML, "application/x-yaml", "text/yaml", "text/x-yaml", "text/plain")
LANGUAGE = OpenApiParameter(
    "language",
    str,
    OpenApiParameter.QUERY,
    required=False,
    description="A language of the bot (ISO code, e.g. fr); the bot's default language when absent. Rasa trains "
    "one model per language, so each file holds one.",
)
COUNTS = {"type": "object", "properties": {"created": INTEGER, "updated": INTEGER, "unchanged": INTEGER}}
LANGUAGE_STATUS = {
    "type": "object",
    "required": ["language", "exported", "exportedAt", "changedSinceExport"],
    "properties": {
        "language": {"type": "string"},
        "exported": BOOLEAN,
        "exportedAt": {"type": "string", "format": "date-time", "nullable": True},
        "exportedBy": {"type": "string"},
        "exportedKnowledgeVersion": INTEGER,
        "changedSinceExport": {"type": "boolean", "nullable": True},
        "intents": INTEGER,
        "examples": INTEGER,
        "synonyms": INTEGER,
    },
}
STATUS = {
    "type": "object",
    "required": ["botUUID", "knowledgeVersion", "languages"],
    "properties": {
        "botUUID": {"type": "string"},
        "format": {"type": "string"},
        "knowledgeVersion": INTEGER,
        "languages": {"type": "array", "items": LANGUAGE_STATUS},
    },
}
REPORT = {
    "type": "object",
    "required": ["botUUID", "language", "intents", "synonyms", "examples", "skipped"],
    "properties": {
        "botUUID": {"type": "string"},
        "language": {"type": "string"},
        "intents": COUNTS,
        "synonyms": COUNTS,
        "examples": {"type": "object", "properties": {"added": INTEGER, "removed": INTEGER}},
        "draftsWithPlaceholder": INTEGER,
        "skipped": {"type": "array", "items": OBJECT},
    },
}
# The export's YAML document, described as the structure it holds (Rasa's NLU training data format).
NLU_FILE = {
    "type": "object",
    "required": ["version", "nlu"],
    "properties": {
        "version": {"type": "string", "enum": ["3.1"]},
        "nlu": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "intent": {"type": "string", "description": "An item's intent name."},
                    "synonym": {"type": "string", "description": "A matching group's name."},
                    "examples": {"type": "string", "description": "One `- text` line per example or member."},
                },
            },
        },
    },
}
UPLOAD = {
    "multipart/form-data": {
        "type": "object",
        "properties": {"file": {"type": "string", "format": "binary"}},
        "required": ["file"],
    },
    YAML: {"type": "string", "format": "binary"},
}


def bot_language(bot, value: str | None) -> str:
    """The language asked for, one of the bot's (400 otherwise), or the bot's default language."""
    if not (value or "").strip():
        return bot.default_language
    code = language_code(value)
    languages = bot.language_codes()
    if code not in languages:
        raise InvalidField("language", f"'{value[:20]}' is not a language of this bot ({', '.join(languages)})")
    return code


def query(request) -> ServletParams:
    """The query string's fields only: an import's body is the file, never read as a form."""
    return ServletParams(query_fields(request))


@extend_schema(
    tags=TAGS,
    summary="Export the bot's knowledge in one language as Rasa NLU training data (YAML, version 3.1)",
    description="One intent per knowledge item (questions and slots, drafts included, disabled items left out) "
    "named once from its label and then kept; its formulations as examples (a `{group}` reference written as "
    "the group's first member); one synonym per matching group (nested groups flattened). Records the "
    "export for the mirror's status.",
    parameters=[LANGUAGE],
    responses=responses(
        {(200, YAML): OpenApiResponse(NLU_FILE, description="The YAML file, as a download.")},
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class RasaExportView(ServletView):
    def get(self, request, bot_uuid):
        bot, user = permitted_bot(request, bot_uuid, "knowledge.read")
        language = bot_language(bot, query(request).text("language", max_length=40))
        version = mirror.current_version(bot)  # read first: a write during the export shows as a change
        exported = nlu_file(bot, language)
        mirror.record_export(bot, language, exported, version, user)
        response = HttpResponse(exported.text, content_type=f"{YAML}; charset=utf-8")
        response["Content-Disposition"] = attachment(download_name(bot, f"rasa nlu {language}")[:-4] + ".yml")
        response["X-Content-Type-Options"] = "nosniff"
        return response


@extend_schema(
    tags=TAGS,
    summary="The Rasa mirror's status: when each language was last exported, and whether the knowledge changed since",
    parameters=[LANGUAGE],
    responses=responses({200: plain_schema(STATUS, "One entry per language.")}, *PROTECTED_RESOURCE_ERRORS),
)
class RasaStatusView(ServletView):
    def get(self, request, bot_uuid):
        bot, _ = permitted_bot(request, bot_uuid, "knowledge.read")
        asked = query(request).text("language", max_length=40)
        languages = [bot_language(bot, asked)] if asked.strip() else bot.language_codes()
        return plain_json(mirror.mirror_status(bot, languages))


@extend_schema(
    tags=TAGS,
    summary="Import a Rasa NLU YAML file as knowledge items (intents) and matching groups (synonyms)",
    description="Multipart field `file` or a YAML request body; the language in the query string. In one "
    "transaction: an intent already imported or exported under that name updates its item (its formulations in "
    "that language become the examples), a new one creates an item; `responses: utter_<intent>` gives the "
    "answer, else a new item is a draft with a placeholder answer. Anchors, aliases, a wrong type or an unknown "
    "version: 400, nothing stored.",
    parameters=[LANGUAGE],
    request=UPLOAD,
    responses=responses(
        {200: plain_schema(REPORT, "What was created, updated, left as it was and skipped.")},
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class RasaImportView(ServletView):
    @staticmethod
    def before_body(request, bot_uuid):
        """What is checked before the file is read (here, and from the headers by bots/servlet/before_body.py)."""
        bot, _ = permitted_bot(request, bot_uuid, "knowledge.edit")
        return bot, bot_language(bot, query(request).text("language", max_length=40))

    def post(self, request, bot_uuid):
        bot, language = self.before_body(request, bot_uuid)
        limit = limit_for(request.path_info)
        with received_file(request, body_types=YAML_TYPES, max_bytes=limit.max_bytes, setting=limit.setting) as source:
            data = read_nlu(source)
        return plain_json(import_nlu(bot, data, language).as_json(bot))
