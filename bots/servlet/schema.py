"""Shared pieces of the API schema (drf-spectacular), so that every servlet group documents its
answers alike and the schema names every status an operation can answer: the one error body
(errors.py), the chat group's envelope with its base64 strings (envelope.py), and the usual error sets.

tests/fuzz holds the platform to this schema: an answer with a status, a body or a content type the
schema does not give for that operation fails the suite.
"""

import re

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers

from .authorization import ServletAuthorization


class ServletAutoSchema(AutoSchema):
    """drf-spectacular's schema of a view, with operation ids that keep the path's parameters: the
    servlet has many calls at the same path with and without a trailing parameter
    (chat/talk/{bot_uuid} and chat/talk/{bot_uuid}/{context_id}), whose default ids collided."""

    def get_operation_id(self) -> str:
        path = re.sub(self.path_prefix, "", self.path, flags=re.IGNORECASE)
        tokens = [token.strip("{}").replace("-", "_") for token in path.strip("/").split("/") if token]
        return "_".join([*(tokens or ["root"]), self.method_mapping[self.method.lower()]])

    def get_operation(self, *args, **kwargs):
        """An operation that may answer 401 takes the Authorization header: declared here from its
        documented answers, so the console's Authorize reaches every protected call, whichever base
        class its view has (some check credentials themselves, without authentication classes)."""
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        if "401" in operation["responses"] and not operation.get("security"):
            operation["security"] = self.servlet_security()
        self.keep_own_path_parameters(operation)
        return operation

    def keep_own_path_parameters(self, operation: dict) -> None:
        """A view routed with and without an optional path part (export/{bot_uuid} and
        export/{bot_uuid}/{exclude_gallery}) declares that part once, for both routes: the route without it
        then documented a required path field it cannot take, and the console refused to send it."""
        own = set(re.findall(r"{(\w+)}", self.path))
        if "parameters" in operation:
            operation["parameters"] = [
                parameter
                for parameter in operation["parameters"]
                if parameter["in"] != "path" or parameter["name"] in own
            ]

    def servlet_security(self) -> list[dict]:
        scheme = OpenApiAuthenticationExtension.get_match(ServletAuthorization())
        self.registry.register_on_missing(
            ResolvedComponent(
                name=scheme.name,
                type=ResolvedComponent.SECURITY_SCHEMA,
                object=ServletAuthorization,
                schema=scheme.get_security_definition(self),
            )
        )
        return [{scheme.name: []}]


class ServletErrorSerializer(serializers.Serializer):
    """Every servlet error (bots/servlet/errors.py); some carry more keys (retryAfter, maxBytes, botUUID…)."""

    error = serializers.CharField(help_text="What went wrong, for a person.")
    code = serializers.CharField(help_text="A stable code: MISSING_FIELD, INVALID_FIELD, UNKNOWN_BOT, TOO_LARGE…")
    field = serializers.CharField(
        required=False,
        help_text="The request field at fault: a form field, a path parameter, `body` (a body that cannot be "
        "read) or `query`.",
    )


ERROR_MEANINGS = {
    400: "Bad input: a missing or invalid field (named in `field`: a NUL character, a lone surrogate, JSON "
    "nested too deep, a value out of range…) or a body that cannot be read (multipart without a boundary, "
    "broken JSON). Nothing is stored.",
    401: "Missing, wrong, expired or revoked credentials (MISSING_CREDENTIALS, INVALID_CREDENTIALS, "
    "TOKEN_EXPIRED, TOKEN_REVOKED).",
    403: "Not allowed: a bot or resource of another account, or an action beyond the caller's role.",
    404: "Unknown bot, context or other resource named in the call.",
    405: "This method is not allowed here.",
    409: "Conflicts with what is stored (already exists, still referenced, already taken).",
    413: "The request body is larger than this call accepts (TOO_LARGE, maxBytes).",
    429: "Too many requests: repeated wrong passwords (LOGIN_SLOWED, LOGIN_LOCKED) or another limit; "
    "Retry-After says when to try again.",
    503: "A shared service is down (DATABASE_UNAVAILABLE, CACHE_UNAVAILABLE): nothing was done; Retry-After "
    "(and `retryAfter`) says when to try again.",
}

# Any request may carry a body, and every URL bounds it (bots/servlet/limits.py); any request may meet
# the database down (bots/servlet/middleware.py), except the server status, which then answers Ko.
ALWAYS = (413, 503)
# A chat call: bad input, an unknown bot (or context).
CHAT_ERRORS = (400, 404, *ALWAYS)
# A call that needs credentials; HTTP Basic counts wrong passwords, so any of them may answer 429.
PROTECTED_ERRORS = (400, 401, 403, 429, *ALWAYS)
# The same, on a bot or another resource named in the path.
PROTECTED_RESOURCE_ERRORS = (*PROTECTED_ERRORS, 404)


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    return {
        status: OpenApiResponse(ServletErrorSerializer, description=ERROR_MEANINGS[status])
        for status in sorted(set(statuses))
    }


def responses(ok: dict, *errors: int) -> dict:
    """An operation's answers: its successes (status or (status, media type) → response) and its errors."""
    return {**ok, **error_responses(*errors)}


# A string of the chat envelope: base64 of its UTF-8 bytes (the chatbox decodes every string of `values`).
B64 = {"type": "string", "format": "byte", "description": "base64 of the UTF-8 text"}
B64_OBJECT = {"type": "object", "additionalProperties": B64, "description": "strings are base64 of UTF-8 text"}
INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}
OBJECT = {"type": "object", "additionalProperties": True}
ARRAY = {"type": "array", "items": {}}
EMPTY_OBJECT = {"type": "object", "description": "{}: received."}


def envelope_schema(
    type_name: str | list[str], values: dict, *, required: tuple[str, ...] = (), description: str = ""
) -> OpenApiResponse:
    """The chat group's answer {"type", "values"}; every string under `values`, at any depth, is base64
    of its UTF-8 bytes (numbers, booleans and null are plain), including keys not listed here."""
    names = [type_name] if isinstance(type_name, str) else type_name
    values_schema = {
        "type": "object",
        "description": "Every string, at any depth, is base64 of its UTF-8 bytes.",
        "properties": values,
        "additionalProperties": True,
    }
    if required:
        values_schema["required"] = list(required)
    schema = {
        "type": "object",
        "required": ["type", "values"],
        "properties": {"type": {"type": "string", "enum": names}, "values": values_schema},
    }
    return OpenApiResponse(schema, description=description or f"The chat envelope ({', '.join(names)}).")


def plain_schema(schema: dict, description: str = "") -> OpenApiResponse:
    """A JSON answer read as is (no base64)."""
    return OpenApiResponse(schema, description=description)


SCRIPT = OpenApiResponse({"type": "string"}, description="JavaScript text (the old servlet's answer).")


# Every chat call on a bot with SAML on (accounts/saml/guard.py).
CHAT_SAML = (
    "On a bot whose preference chatbox.auth.saml.menu.enabled is true, send `saml2_info` (the token of the last "
    "`values.auth`): without a valid one the call does nothing and answers 200 "
    '`{"type": "SAML_redirection", "values": {"auth": <new token>, "redirection_url": <login address>}}` '
    "(base64 strings); with one, the answer's `values.auth` renews it."
)


def chat_call(summary: str, *, form=None, ok: dict, errors: tuple[int, ...] = CHAT_ERRORS, tags=("Chat",)):
    """A chat call answers GET (its fields in the query string) and POST (a form, JSON or multipart
    body, or the query string) alike (servlet-api.md §1.5)."""
    answers = responses(ok, *errors)
    return extend_schema_view(
        get=extend_schema(
            tags=list(tags),
            summary=summary,
            description=CHAT_SAML,
            parameters=[form] if form is not None else [],
            responses=answers,
        ),
        post=extend_schema(tags=list(tags), summary=summary, description=CHAT_SAML, request=form, responses=answers),
    )
