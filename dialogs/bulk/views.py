"""The Dialogs servlet group: export a bot's dialogs over a period (JSON lines or CSV, streamed), and
read one dialog with its interactions. Every call needs a token and the right to read the bot's data
(knowledge.read: every role of the bot's account, README "Roles"); the visitors' clientId is only
filled in for administrators (product-behaviour.md §4.1). 401, then 404 (unknown bot), then 403."""

from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from accounts.models import Role
from accounts.permissions import role_of
from accounts.servlet import permitted_bot
from bots.servlet.envelope import plain_json
from bots.servlet.errors import InvalidField
from bots.servlet.schema import OBJECT, PROTECTED_RESOURCE_ERRORS, plain_schema, responses
from bots.servlet.views import ServletView
from knowledge.api.views import AsyncChunks, attachment, download_name

from .export import COLUMNS, export_rows
from .formats import FORMATS, format_named
from .reading import dialog_json, find_dialog
from .selection import Selection

DIALOGS = ["Dialogs"]
READ = "knowledge.read"


def query(name: str, description: str, enum: list[str] | None = None) -> OpenApiParameter:
    return OpenApiParameter(name, str, OpenApiParameter.QUERY, description=description, enum=enum)


EXPORT_PARAMETERS = [
    query("format", "jsonl (default; also json, ndjson) or csv.", ["jsonl", "csv"]),
    query(
        "from",
        "Dialogs that started at or after this moment: an ISO date (2026-11-01), an ISO date-time "
        "(2026-11-01T08:30:00Z; without an offset, the server's time zone) or epoch milliseconds. Also startDate.",
    ),
    query("to", "Dialogs that started before this moment; a date alone includes its whole day. Also endDate."),
    query("space", "Only dialogs in this consultation space (exact name)."),
    query("language", "Only dialogs in this language (fr, en…)."),
    query(
        "qualificationMode", "true: only test (qualification-mode) dialogs; false: only real ones.", ["true", "false"]
    ),
    query(
        "livechat",
        "true: only dialogs that went to live chat; false: only dialogs with the bot alone.",
        ["true", "false"],
    ),
    query(
        "feedback",
        "Only dialogs with at least one feedback of this kind (positive, negative, withoutAnswer), any feedback "
        "(any), or none.",
        ["positive", "negative", "withoutAnswer", "any", "none"],
    ),
]
FILE = {"type": "string", "format": "binary"}
EXPORT_DESCRIPTION = (
    "One row per interaction; dialogs in the order they started (inside each batch of 500, in the order they "
    "were created: the same but for dialogs opened at the same moment), each dialog's interactions in order. "
    f"Keys (JSON lines) or columns (CSV, with a header line): {', '.join(COLUMNS)}. clientId is empty "
    "unless the caller is an administrator. CSV cells a spreadsheet would run as formulas (=, +, -, @) "
    "start with a quote. Streamed: memory stays flat however many dialogs there are."
)
DIALOG = {
    "type": "object",
    "required": ["contextId", "botUUID", "interactions"],
    "properties": {
        "contextId": {"type": "string"},
        "botUUID": {"type": "string"},
        "dialogStart": {"type": "string", "format": "date-time"},
        "lastActivity": {"type": "string", "format": "date-time"},
        "archived": {"type": "boolean"},
        "language": {"type": "string"},
        "space": {"type": "string"},
        "qualificationMode": {"type": "boolean"},
        "livechat": {"type": "boolean"},
        "clientId": {"type": "string"},
        "browser": {"type": "string"},
        "os": {"type": "string"},
        "userUrl": {"type": "string"},
        "interactions": {"type": "array", "items": OBJECT},
    },
}


def shows_client_ids(user) -> bool:
    return role_of(user) == Role.ADMINISTRATOR


@extend_schema(
    tags=DIALOGS,
    summary="Export the bot's dialogs over a period (JSON lines or CSV, streamed)",
    description=EXPORT_DESCRIPTION,
    parameters=EXPORT_PARAMETERS,
    responses=responses(
        {
            (200, "application/x-ndjson"): OpenApiResponse(FILE, description="JSON lines, as a download."),
            (200, "text/csv"): OpenApiResponse(FILE, description="CSV (UTF-8, CRLF), as a download."),
        },
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class DialogsExportView(ServletView):
    def get(self, request, bot_uuid):
        bot, user = permitted_bot(request, bot_uuid, READ)
        params = self.params(request)
        encoding = format_named(params.text("format", max_length=40))
        if encoding is None:
            raise InvalidField("format", f"use one of {', '.join(FORMATS)}")
        # Every field is read here, before the first byte: a bad one is a 400, never a cut-off file.
        selection = Selection.from_params(bot, params)
        chunks = encoding.encode(export_rows(selection, client_ids=shows_client_ids(user)))
        return download(request, chunks, encoding, download_name(bot, "dialogs").removesuffix(".xml"))


def download(request, chunks, encoding, name: str) -> StreamingHttpResponse:
    """Streamed as produced; under ASGI chunk by chunk in the request's thread (knowledge.api.views)."""
    asgi = isinstance(getattr(request, "_request", request), ASGIRequest)
    response = StreamingHttpResponse(AsyncChunks(chunks) if asgi else chunks, content_type=encoding.content_type)
    response["Content-Disposition"] = attachment(f"{name}.{encoding.extension}")
    response["X-Content-Type-Options"] = "nosniff"
    return response


@extend_schema(
    tags=DIALOGS,
    summary="One dialog of the bot with its interactions",
    responses=responses(
        {200: plain_schema(DIALOG, "The dialog (archived or not) and its interactions in order.")},
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class DialogView(ServletView):
    def get(self, request, bot_uuid, context_id):
        bot, user = permitted_bot(request, bot_uuid, READ)
        dialog = find_dialog(bot, context_id)
        return plain_json(dialog_json(dialog, client_ids=shows_client_ids(user)))
