"""Servlet groups of the bots app: Server status and the bot languages the chatbox asks for."""

import socket
import time

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema

from bots.servlet.envelope import plain_json
from bots.servlet.errors import MissingField
from bots.servlet.views import ServletView, get_bot
from bots.version import version_string


@extend_schema(
    tags=["Server status"],
    summary="Server status (anonymous: status, date and version only)",
    parameters=[
        OpenApiParameter("details", bool, description="Include volumes and applications (needs a token)."),
        OpenApiParameter("pretty", bool, description="Indent the JSON."),
    ],
)
class ServerStatusView(ServletView):
    def get(self, request):
        started = time.perf_counter()
        params = self.params(request)
        pretty = params.boolean("pretty")
        params.boolean("details")
        body = {
            "withDetails": False,
            "status": "Ok",
            "hostName": socket.gethostname(),
            "date": timezone.localtime().strftime("%Y-%m-%d %H:%M:%S"),
            "version": version_string(),
            "durationMs": int((time.perf_counter() - started) * 1000),
        }
        response = plain_json(body)
        if pretty:
            import json

            response.content = json.dumps(body, indent=2, ensure_ascii=False).encode()
        return response

    def post(self, request):
        return self.get(request)


@extend_schema(tags=["Account"], summary="Languages of a bot (the chatbox's bots/language call)")
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
