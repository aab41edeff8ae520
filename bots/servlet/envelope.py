"""The chat group's answer envelope: {"type": ..., "values": {...}} with every string base64.

The chatbox decodes every string under `values`, at any depth (client-contract.md §1.6); a string
sent plain comes out as garbage, so this is the one place where strings are encoded.
"""

import base64
import json

from django.http import HttpResponse, JsonResponse


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def b64_decode(text: str) -> str:
    """Lenient decode of a base64 field the client sends; text that is not base64 comes back as is."""
    try:
        padded = text + "=" * (-len(text) % 4)
        return base64.b64decode(padded, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return text


def encode_values(value):
    """Base64-encode every string at any depth; numbers, booleans and None pass through."""
    if isinstance(value, str):
        return b64(value)
    if isinstance(value, dict):
        return {key: encode_values(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode_values(item) for item in value]
    return value


def envelope_body(values, response_type: str | None = None) -> dict:
    """The envelope as data; without a type for the two answers the chatbox reads bare (pushrules'
    rules, SAML's not-connected string)."""
    body = {"values": encode_values(values)}
    return body if response_type is None else {"type": response_type, **body}


def envelope(response_type: str, values, status: int = 200) -> JsonResponse:
    return JsonResponse(envelope_body(values, response_type), status=status)


def plain_json(data, status: int = 200) -> JsonResponse:
    """JSON the client reads without decoding (arrays, {} acknowledgements)."""
    return JsonResponse(data, status=status, safe=False, json_dumps_params={"ensure_ascii": False})


def script(text: str) -> HttpResponse:
    return HttpResponse(text, content_type="application/javascript; charset=utf-8")


def json_string(data) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
