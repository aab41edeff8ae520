"""The Log Explicit servlet group: GET logs/{botUUID}, a bot's error log page by page.

Reading a log needs a token (or Basic credentials) whose user may see the server's details for that bot
(`status.details`: administrators and editors, the roles that read errorsByBot in the server status):
401 without valid credentials, 404 for an unknown bot, 403 for a bot of another account or another role,
400 for a bad period, kind or page.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema

from accounts.servlet import permitted_bot
from bots.logs import READ_LOGS
from bots.servlet.envelope import plain_json
from bots.servlet.schema import PROTECTED_RESOURCE_ERRORS, plain_schema, responses
from bots.servlet.views import ServletView
from dialogs.bulk.period import HOW

from .listing import KINDS, MAX_PAGE, MAX_PAGE_SIZE, PAGE_SIZE, LogQuery, log_page

STRING = {"type": "string"}
TEXT_OR_NULL = {"type": "string", "nullable": True}
INTEGER = {"type": "integer"}
CLIENT_ENTRY = {
    "type": "object",
    "description": "A report the chatbox sent (chat/error).",
    "required": ["kind", "id", "date", "code", "message"],
    "properties": {
        "kind": {"type": "string", "enum": ["client"]},
        "id": INTEGER,
        "date": {"type": "string", "format": "date-time"},
        "code": {"type": "string", "description": "The report's `error` field."},
        "message": STRING,
        "contextId": STRING,
        "solutionUsed": STRING,
        "stackTrace": STRING,
        "jsCreation": STRING,
        "browser": STRING,
        "os": STRING,
        "userUrl": STRING,
    },
}
SERVER_ENTRY = {
    "type": "object",
    "description": "One kind of error the bot's chat calls got during one minute, with how many times.",
    "required": ["kind", "id", "date", "lastDate", "count", "operation", "status", "code", "message"],
    "properties": {
        "kind": {"type": "string", "enum": ["server"]},
        "id": INTEGER,
        "date": {"type": "string", "format": "date-time", "description": "The minute's start."},
        "lastDate": {"type": "string", "format": "date-time", "description": "The last of these errors."},
        "count": INTEGER,
        "operation": {"type": "string", "description": 'Method and route: "POST chat/talk/{bot_uuid}".'},
        "status": {"type": "integer", "description": "The HTTP status answered (0: the overflow row)."},
        "code": {"type": "string", "description": "INVALID_FIELD, UNKNOWN_CONTEXT…; MORE_KINDS: the overflow row."},
        "message": {"type": "string", "description": "The first error text of that minute (at most 200 characters)."},
    },
}
LOG_PAGE = {
    "type": "object",
    "required": ["botUUID", "kind", "page", "pageSize", "total", "nextPage", "entries"],
    "properties": {
        "botUUID": {"type": "string", "format": "uuid"},
        "kind": {"type": "string", "enum": list(KINDS)},
        "code": TEXT_OR_NULL,
        "from": {**TEXT_OR_NULL, "format": "date-time"},
        "to": {**TEXT_OR_NULL, "format": "date-time"},
        "page": INTEGER,
        "pageSize": INTEGER,
        "total": {"type": "integer", "description": "Entries in the period for this kind and code, on every page."},
        "nextPage": {"type": "integer", "nullable": True, "description": "null on the last page."},
        "entries": {"type": "array", "items": {"oneOf": [CLIENT_ENTRY, SERVER_ENTRY]}},
    },
}
PARAMETERS = [
    OpenApiParameter(
        "from", str, description=f"Start of the period (included; also startDate): {HOW}. Default: the oldest."
    ),
    OpenApiParameter(
        "to",
        str,
        description=f"End of the period (excluded; a date alone includes that day; also endDate): {HOW}. "
        "Default: none.",
    ),
    OpenApiParameter("kind", str, enum=list(KINDS), description="client, server or all (default)."),
    OpenApiParameter("code", str, description="Only this code (a server error's code, a client report's `error`)."),
    OpenApiParameter("page", int, description=f"1 (default) to {MAX_PAGE:,}."),
    OpenApiParameter("pageSize", int, description=f"1 to {MAX_PAGE_SIZE} (default {PAGE_SIZE})."),
]


@extend_schema(
    tags=["Log Explicit"],
    summary="The bot's error log: client error reports and server-side chat errors, newest first, by page",
    parameters=PARAMETERS,
    responses=responses({200: plain_schema(LOG_PAGE, "One page of the log.")}, *PROTECTED_RESOURCE_ERRORS),
)
class BotLogView(ServletView):
    def get(self, request, bot_uuid):
        bot, _ = permitted_bot(request, bot_uuid, READ_LOGS)
        return plain_json(log_page(bot, LogQuery.from_params(self.params(request))))
