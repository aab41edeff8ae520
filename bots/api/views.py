"""Servlet group of the bots app: the bot languages the chatbox asks for (server status, authorised by accounts'
permissions, is accounts/api/server_status.py). Each call's schema names every status it may answer."""

from drf_spectacular.utils import OpenApiParameter, extend_schema

from bots.servlet.envelope import plain_json
from bots.servlet.errors import MissingField
from bots.servlet.schema import ALWAYS, plain_schema, responses
from bots.servlet.views import ServletView, get_bot


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
