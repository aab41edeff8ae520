"""Servlet groups of the bots app: Server status, Who am I, and the bot languages the chatbox asks for.
Each call's schema names every status it may answer (bots/servlet/schema.py)."""

import json

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema

from accounts.permissions import authenticate_if_present, authorize
from bots.servlet.authorization import ServletAuthorization
from bots.servlet.envelope import plain_json
from bots.servlet.errors import MissingField
from bots.servlet.schema import ALWAYS, OBJECT, PROTECTED_ERRORS, plain_schema, responses
from bots.servlet.views import ServletView, get_bot
from bots.status import report


@extend_schema(
    tags=["Server status"],
    summary="Server status: anonymous callers get status, date and version; details need a token",
    parameters=[
        OpenApiParameter("details", bool, description="Add volumes and applications (needs status.details)."),
        OpenApiParameter("pretty", bool, description="Indent the JSON."),
    ],
    request=None,
    # Bad credentials are an error only with details=true (401), as is a role without status.details (403).
    # With the database or the cache down it still answers 200, `status: Ko`, the failing check named.
    responses=responses(
        {200: plain_schema(OBJECT, "status, date, version; with details, the checks.")},
        *(status for status in PROTECTED_ERRORS if status != 503),
    ),
)
class ServerStatusView(ServletView):
    authentication_classes = [ServletAuthorization]

    def get(self, request):
        params = self.params(request)
        pretty = params.boolean("pretty")
        details = params.boolean("details")
        has_credentials = bool((request.META.get("HTTP_AUTHORIZATION") or "").strip())
        if details and has_credentials:
            authorize(request, None, "status.details")
            body = report.full(details=True)
        elif has_credentials and authenticate_if_present(request) is not None:
            # Without details, bad credentials are not an error: the chatbox may send an OIDC token.
            body = report.full(details=False)
        else:
            body = report.summary()
        if pretty:
            text = json.dumps(body, indent=2, ensure_ascii=False)
            return HttpResponse(text + "\n", content_type="application/json")
        return plain_json(body)

    def post(self, request):
        return self.get(request)


@extend_schema(
    tags=["Account"],
    summary="Languages of a bot (the chatbox's bots/language call)",
    parameters=[OpenApiParameter("botUUID", str, description="The bot (also botUuid, botId), unless in the path.")],
    request=None,
    responses=responses(
        {
            200: plain_schema(
                {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "string"}, "isAvailable": {"type": "boolean"}},
                    },
                }
            )
        },
        400,
        404,
        *ALWAYS,
    ),
)
class BotLanguagesView(ServletView):
    def get(self, request, bot_uuid=None):
        bot_uuid = bot_uuid or self.params(request).text("botUUID", "botUuid", "botId")
        if not bot_uuid:
            raise MissingField("botUUID")
        bot = get_bot(bot_uuid)
        languages = [
            {"id": code, "isAvailable": available} for code, available in bot.languages.values_list("code", "available")
        ]
        if not languages:
            languages = [{"id": bot.default_language, "isAvailable": True}]
        return plain_json(languages)

    def post(self, request, bot_uuid=None):
        return self.get(request, bot_uuid)
