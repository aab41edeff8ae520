"""The SAML2 servlet group: the chatbox's saml2/status and saml2/userinfo calls, and the service
provider's own pages (metadata, the start of a login, the assertion consumer service)."""

import json

from django.http import HttpResponse, HttpResponseRedirect
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers

from bots.servlet.envelope import envelope, envelope_body, plain_json
from bots.servlet.schema import ALWAYS, B64, BOOLEAN, CHAT_ERRORS, INTEGER, envelope_schema, plain_schema, responses
from bots.servlet.views import ServletView, get_bot

from .enabled import saml_enabled
from .guard import FIELD

TAGS = ["Saml2 service provider for chatboxes"]
VISITOR_FORM = inline_serializer(
    "Saml2VisitorForm",
    {
        "botUUID": serializers.CharField(help_text="The chatbox's bot (also botId)."),
        FIELD: serializers.CharField(required=False, help_text="The token the chatbox stored (values.auth)."),
    },
)
NOT_CONNECTED = {
    "type": "string",
    "description": 'A JSON *string* holding {"values": {"auth": <base64 of a new token>, "redirection_url": '
    "<base64 of the login address>}}: the chatbox stores the token and goes to the address.",
}
STATUS_VALUES = {"enabled": BOOLEAN, "authenticated": BOOLEAN, "auth": B64, "nameId": B64, "expiresAt": INTEGER}
ATTRIBUTES = {
    "type": "object",
    "required": ["attribute", "authenticated"],
    "properties": {
        "attribute": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
            "description": "The identity provider's attributes, name → values ({} when nobody is logged in).",
        },
        "nameId": {"type": "string"},
        "authenticated": BOOLEAN,
    },
}


class Saml2View(ServletView):
    """Both calls answer GET (what CV5 sends) and POST alike."""

    def post(self, request, *args, **kwargs):
        return self.get(request, *args, **kwargs)

    def visitor(self, request):
        """(the bot's UUID, whether SAML is on for it, the visitor or None, the token to hand back)."""
        params = self.params(request)
        bot = get_bot(params.text("botUUID", "botId", "botUuid", required=True))
        bot_uuid, token = str(bot.uuid), params.text(FIELD, max_length=20_000)
        if not saml_enabled(bot_uuid):
            return bot_uuid, False, None, ""
        from .session import identify  # pysaml2 loads only where SAML is on

        return bot_uuid, True, *identify(token, bot_uuid)


def _both(summary: str, ok: dict, errors=CHAT_ERRORS, form=VISITOR_FORM):
    answers = responses(ok, *errors)
    return extend_schema_view(
        get=extend_schema(tags=TAGS, summary=summary, parameters=[form], responses=answers),
        post=extend_schema(tags=TAGS, summary=summary, request=form, responses=answers),
    )


@_both(
    "Is the chatbox's visitor logged in with SAML? (client-contract.md §2.4)",
    {
        200: plain_schema(
            {
                "oneOf": [
                    envelope_schema(
                        "saml2StatusResponse", STATUS_VALUES, required=("enabled", "authenticated")
                    ).response,
                    NOT_CONNECTED,
                ]
            },
            "Logged in, or SAML off for this bot: the envelope (values.auth renews the token). Not logged in: "
            "a JSON string the chatbox parses and follows.",
        )
    },
)
class Saml2StatusView(Saml2View):
    def get(self, request):
        bot_uuid, on, visitor, token = self.visitor(request)
        if not on:
            return envelope("saml2StatusResponse", {"enabled": False, "authenticated": False})
        if visitor is None:
            from .session import redirection

            values = redirection(request, bot_uuid)
            # CV5 treats the visitor as not connected only when the body is a JSON string of this shape.
            body = json.dumps(envelope_body(values))
            return plain_json(body)
        return envelope(
            "saml2StatusResponse",
            {
                "enabled": True,
                "authenticated": True,
                "auth": token,
                "nameId": visitor.name_id,
                "expiresAt": visitor.expires * 1000,
            },
        )


@_both("The logged-in visitor's attributes from the identity provider", {200: plain_schema(ATTRIBUTES)})
class Saml2UserInfoView(Saml2View):
    def get(self, request):
        _bot_uuid, _on, visitor, _token = self.visitor(request)
        if visitor is None:
            return plain_json({"attribute": {}, "authenticated": False})
        return plain_json({"attribute": visitor.attributes, "nameId": visitor.name_id, "authenticated": True})


@extend_schema(
    tags=TAGS,
    summary="The service provider's SAML2 metadata (give it to the identity provider)",
    responses=responses(
        {(200, "application/samlmetadata+xml"): OpenApiResponse({"type": "string"}, description="XML.")}, *ALWAYS
    ),
)
class Saml2MetadataView(ServletView):
    def get(self, request):
        from . import sp

        return HttpResponse(sp.metadata_xml(sp.base_url(request)), content_type="application/samlmetadata+xml")


REDIRECT = {302: OpenApiResponse(description="To the identity provider's login page (Location).")}
LOGIN_FORM = inline_serializer(
    "Saml2LoginForm",
    {
        "login": serializers.CharField(help_text="The signed login reference of SAML_redirection's address."),
        "RelayState": serializers.CharField(help_text="The chatbox page to come back to (an allowed origin)."),
    },
)


@extend_schema(
    tags=TAGS,
    summary="Start the login SAML_redirection points to: off to the bot's identity provider",
    parameters=[LOGIN_FORM],
    responses=responses(REDIRECT, 400, 403, 404, *ALWAYS),
)
class Saml2LoginView(ServletView):
    def get(self, request):
        from . import flow

        params = self.params(request)
        login = params.text("login", required=True, max_length=2000)
        location = flow.start(request, login, params.text("RelayState", max_length=2001))
        return HttpResponseRedirect(location)


ACS_FORM = inline_serializer(
    "Saml2AcsForm",
    {
        "SAMLResponse": serializers.CharField(help_text="The identity provider's signed Response (base64)."),
        "RelayState": serializers.CharField(help_text="The state this server gave the identity provider."),
    },
)


@extend_schema(
    tags=TAGS,
    summary="Assertion consumer service: the identity provider posts its Response here (HTTP-POST binding)",
    request=ACS_FORM,
    responses=responses(
        {302: OpenApiResponse(description="Accepted: back to the chatbox page the visitor came from.")},
        400,
        403,
        404,
        *ALWAYS,
    ),
)
class Saml2AcsView(ServletView):
    def post(self, request):
        from . import flow

        params = self.params(request)
        back = flow.finish(
            params.text("SAMLResponse", required=True, max_length=500_000), params.text("RelayState", max_length=100)
        )
        return HttpResponseRedirect(back)
