"""The base of every servlet view: lenient content negotiation, parameters with aliases, bot lookup."""

import uuid

from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from bots.models import Bot
from bots.statements import bot_with_uuid

from .errors import UnknownBot
from .params import ServletParams, check_text
from .schema import ServletAutoSchema


class AnyAccept(BaseContentNegotiation):
    """Servlet answers have one shape whatever the Accept header says (the docs even send
    `application / javascript`), so negotiation never fails with 406."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        renderer = renderers[0] if renderers else JSONRenderer()
        return renderer, renderer.media_type


class ServletView(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    content_negotiation_class = AnyAccept
    renderer_classes = [JSONRenderer]
    schema = ServletAutoSchema()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # Path segments are fields too: a NUL in /bousers/%00 reached the database as it was.
        for name, value in kwargs.items():
            if isinstance(value, str):
                check_text(name, value)

    def params(self, request) -> ServletParams:
        if not hasattr(request, "_servlet_params"):
            request._servlet_params = ServletParams.from_request(request)
        return request._servlet_params


def get_bot(bot_uuid: str | None) -> Bot:
    """The bot with that UUID, or a 404 JSON error (a malformed UUID is an unknown bot too)."""
    try:
        parsed = uuid.UUID(str(bot_uuid or "").strip())
    except ValueError:
        raise UnknownBot(str(bot_uuid or "")[:64]) from None
    bot = bot_with_uuid(parsed)
    if bot is None:
        raise UnknownBot(str(parsed))
    return bot
