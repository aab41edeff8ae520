"""Reading servlet parameters: form, query string or JSON body, with every alias the clients use.

The chatbox spells the same field several ways (contextId / contextUUID / contextUuid / ctx) and
sends empty values as the literal text "null" on some calls (client-contract.md §1.4, §6.2).
"""

import json
from urllib.parse import parse_qsl

from .errors import InvalidField, MissingField

CONTEXT_ID = ("contextId", "contextUUID", "contextUuid", "contextuuid", "ctx")
ABSENT = {"null", "undefined"}
TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off"}


class ServletParams:
    def __init__(self, data: dict[str, str]):
        self.data = data

    @classmethod
    def from_request(cls, request) -> "ServletParams":
        request = getattr(request, "_request", request)  # a DRF Request wraps Django's
        data: dict[str, str] = {}
        for key, value in request.GET.items():
            data[key] = value
        content_type = request.content_type or ""
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            if content_type.startswith("application/json"):
                data.update(_json_fields(request.body))
            elif content_type.startswith("multipart/form-data"):
                data.update(request.POST.items())
            elif request.body:
                # Parsed by hand: some chatbox calls are not percent-encoded and come without a
                # Content-Type; parse_qsl keeps what it cannot decode instead of failing.
                body = request.body.decode("utf-8", errors="replace")
                data.update(parse_qsl(body, keep_blank_values=True))
        return cls(data)

    def raw(self, *names: str) -> str | None:
        for name in names:
            if name in self.data:
                return self.data[name]
        return None

    def text(self, *names: str, required: bool = False, default: str = "", max_length: int | None = None) -> str:
        value = self.raw(*names)
        if value is None or value.strip() in ABSENT:
            value = None
        if value is None or (required and not value.strip()):
            if required:
                raise MissingField(names[0])
            return default
        return value[:max_length] if max_length else value

    def boolean(self, *names: str, default: bool = False) -> bool:
        value = self.raw(*names)
        if value is None:
            return default
        lowered = value.strip().lower()
        if lowered in TRUE:
            return True
        if lowered in FALSE:
            return False
        if lowered in ABSENT or lowered == "":
            return default
        raise InvalidField(names[0], f"'{value[:40]}' is not a boolean (true or false)")

    def integer(self, *names: str, default: int | None = None, minimum: int | None = None, maximum: int | None = None):
        value = self.text(*names)
        if not value:
            return default
        try:
            number = int(value.strip())
        except ValueError:
            raise InvalidField(names[0], f"'{value[:40]}' is not an integer") from None
        if minimum is not None and number < minimum:
            raise InvalidField(names[0], f"must be at least {minimum}")
        if maximum is not None and number > maximum:
            number = maximum
        return number

    def json_object(self, *names: str, enum_key: str | None = None) -> dict:
        """A JSON object field (variables, extraParameters); malformed text is rejected.

        With enum_key, a bare word such as `reword_auto` is read as {enum_key: word} (servlet-api.md
        sends extraParameters as an enum, the chatbox as a JSON object).
        """
        value = self.text(*names).strip()
        if not value:
            return {}
        if value.startswith("{"):
            try:
                parsed = json.loads(value)
            except ValueError:
                raise InvalidField(names[0], "not a valid JSON object") from None
            if not isinstance(parsed, dict):
                raise InvalidField(names[0], "not a JSON object")
            return parsed
        if enum_key:
            return {enum_key: value}
        # One language version of the spec describes variables as a comma-separated key=value list.
        pairs = [part.split("=", 1) for part in value.split(",") if part.strip()]
        if not all(len(pair) == 2 and pair[0].strip() for pair in pairs):
            raise InvalidField(names[0], "expected a JSON object or a key=value list")
        return {key.strip(): val.strip() for key, val in pairs}


def _json_fields(body: bytes) -> dict[str, str]:
    try:
        parsed = json.loads(body or b"{}")
    except ValueError:
        raise InvalidField("body", "not valid JSON") from None
    if not isinstance(parsed, dict):
        raise InvalidField("body", "expected a JSON object")
    fields = {}
    for key, value in parsed.items():
        if isinstance(value, bool):
            fields[key] = "true" if value else "false"
        elif isinstance(value, (dict, list)):
            fields[key] = json.dumps(value)
        elif value is None:
            fields[key] = "null"
        else:
            fields[key] = str(value)
    return fields
