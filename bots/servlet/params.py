"""Reading servlet parameters: form, query string or JSON body, with every alias the clients use.

The chatbox spells the same field several ways (contextId / contextUUID / contextUuid / ctx) and
sends empty values as the literal text "null" on some calls (client-contract.md §1.4, §6.2).

Every field of every servlet call (and of every websocket frame, through the same ServletParams) is
read here, so this is where hostile input is refused, before any view acts on it, with a 400 that
names the field:
- a NUL character anywhere (PostgreSQL cannot store one: the insert failed after the dialog was made);
- a lone surrogate (a JSON body may spell one as "\\ud800"; it cannot be encoded as UTF-8, so it could
  be neither stored nor answered);
- JSON nested deeper than MAX_JSON_DEPTH, in the body or in a JSON field (variables, extraParameters):
  Python's parser recurses, and 5,000 levels raised RecursionError;
- a body that cannot be read: multipart/form-data without a boundary or otherwise broken, JSON that is
  not an object, more fields than DATA_UPLOAD_MAX_NUMBER_FIELDS.
The same checks apply to the URL's path segments (ServletView.initial).
"""

import json
import re
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http.multipartparser import MultiPartParserError
from django.http.request import UnreadablePostError
from django.utils.http import parse_header_parameters

from .errors import InvalidField, MissingField

CONTEXT_ID = ("contextId", "contextUUID", "contextUuid", "contextuuid", "ctx")
ABSENT = {"null", "undefined"}
TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off"}
# Deep enough for any real variables object or websocket frame, shallow enough that nothing that
# walks a value (the parser, str(), json.dumps, the JSON column) comes near the recursion limit.
MAX_JSON_DEPTH = 32
BODY = "body"


class ServletParams:
    def __init__(self, data: dict[str, str]):
        for name, value in data.items():
            check_text(name, name)
            check_text(name, value)
        self.data = data

    @classmethod
    def from_request(cls, request, unencoded_keys: re.Pattern | None = None) -> "ServletParams":
        """With `unencoded_keys` (the names a call's fields may have), a form body that is plainly not
        percent-encoded is split only before those names (unencoded_fields)."""
        request = getattr(request, "_request", request)  # a DRF Request wraps Django's
        try:
            data: dict[str, str] = dict(request.GET.items())
        except TooManyFieldsSent:
            raise InvalidField("query", "too many fields") from None
        content_type = (request.content_type or "").lower()
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            if content_type.startswith("application/json"):
                data.update(_json_fields(_body(request)))
            elif content_type.startswith("multipart/form-data"):
                data.update(_multipart_fields(request))
            elif body := _body(request):
                # Parsed by hand: some chatbox calls are not percent-encoded and come without a
                # Content-Type; parse_qsl keeps what it cannot decode instead of failing.
                text = body.decode("utf-8", errors="replace")
                if unencoded_keys is not None and not PERCENT_ENCODED.match(text):
                    data.update(unencoded_fields(text, unencoded_keys))
                    return cls(data)
                try:
                    fields = parse_qsl(text, keep_blank_values=True, max_num_fields=_max_fields())
                except ValueError:
                    raise InvalidField(BODY, "too many fields") from None
                data.update(fields)
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
            parsed = parse_json(names[0], value)
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


# What a percent-encoded form body is made of; anything else (a space, an accent, a quote…) means
# the client sent its values raw, as CV5's toFormUrlEncoded does (client-contract.md §1.4).
PERCENT_ENCODED = re.compile(r"^[A-Za-z0-9*._~+%&=-]*$")


def unencoded_fields(text: str, keys: re.Pattern) -> dict[str, str]:
    """A form body sent without percent-encoding: `&` starts a new field only before one of the call's
    field names (`keys` matches a whole name), so a raw `&`, `=`, `+` or `%` stays in its value."""
    fields: dict[str, str] = {}
    name, value = None, []
    for part in text.split("&"):
        key, sep, rest = part.partition("=")
        if sep and keys.fullmatch(key):
            if name is not None:
                fields[name] = "&".join(value)
            name, value = key, [rest]
        elif name is not None:
            value.append(part)
        elif sep:  # text before any known name: kept as the field it looks like
            fields[key] = rest
        if len(fields) > (_max_fields() or len(fields)):
            raise InvalidField(BODY, "too many fields")
    if name is not None:
        fields[name] = "&".join(value)
    return fields


def check_text(field: str, value: str) -> str:
    """The text as is, or a 400 naming the field if it holds a NUL or a lone surrogate."""
    if "\x00" in value:
        raise InvalidField(field_name(field), "contains a NUL character")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidField(field_name(field), "contains a lone surrogate (not a Unicode character)") from None
    return value


def field_name(name: str) -> str:
    """A field's name fit for the error answer: the name itself may be what is wrong with it."""
    shown = name.replace("\x00", "\\x00").encode("utf-8", errors="backslashreplace").decode("utf-8")
    return shown[:100]


def parse_json(field: str, text: str | bytes):
    """JSON text as Python values, every string and key checked, nested at most MAX_JSON_DEPTH deep."""
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise InvalidField(field_name(field), f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        raise InvalidField(field_name(field), "not valid JSON") from None
    check_json(field, parsed)
    return parsed


def check_json(field: str, value) -> None:
    """Walks a parsed JSON value without recursing (its depth is what is being checked)."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            check_text(field, item)
        elif isinstance(item, (dict, list)):
            if depth >= MAX_JSON_DEPTH:
                raise InvalidField(field_name(field), f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(item, dict):
                for key in item:
                    check_text(field, key)
                items = item.values()
            else:
                items = item
            pending.extend((child, depth + 1) for child in items)


def _max_fields() -> int | None:
    return settings.DATA_UPLOAD_MAX_NUMBER_FIELDS


def _body(request) -> bytes:
    try:
        return request.body
    except UnreadablePostError:
        raise InvalidField(BODY, "the request body could not be read") from None


def _multipart_fields(request) -> dict[str, str]:
    """The form fields of a multipart body (files are not servlet parameters).

    The body is read first (servlet calls are bounded to a few KB by limits.py) so that its shape can
    be checked after Django has parsed it: Django's parser is lenient and silently drops what it cannot
    read, so a broken body would reach the view as a call without fields.
    """
    body = _body(request)
    try:
        fields = dict(request.POST.items())
    except MultiPartParserError as error:
        # Django raises it for a missing or invalid boundary and for some bodies that break the format.
        raise InvalidField(BODY, f"not readable as multipart/form-data ({str(error)[:100]})") from None
    except TooManyFieldsSent:
        raise InvalidField(BODY, "too many fields") from None
    except UnreadablePostError:
        raise InvalidField(BODY, "the request body could not be read") from None
    if body:
        boundary = request.content_params.get("boundary", "")
        problem = multipart_problem(body, boundary.encode("ascii", errors="replace"))
        if problem:
            raise InvalidField(BODY, f"not readable as multipart/form-data ({problem})")
    return fields


def multipart_problem(body: bytes, boundary: bytes) -> str | None:
    """What makes a multipart/form-data body broken, or None: the shape RFC 2046 §5.1.1 and RFC 7578
    give it, where Django's parser would guess.

    - every boundary line stands on a line of its own (Django cuts the body at the boundary wherever it
      appears, so "---xyz" started a part that the standard does not see);
    - the body ends with the closing boundary ("--xyz--"): without it the body was cut short;
    - each part has a header block and a Content-Disposition naming its field (Django drops a nameless
      part without a word).
    """
    delimiter = b"--" + boundary
    # A leading CRLF lets the first boundary line, at the very start of the body, match like the others.
    sections = (b"\r\n" + body).split(b"\r\n" + delimiter)
    if body.count(delimiter) != len(sections) - 1:
        return "a boundary that is not on a line of its own"
    if len(sections) < 2:
        return "no boundary line"
    *parts, closing = sections[1:]
    if not closing.startswith(b"--"):
        return "no closing boundary: the body was cut short"
    for part in parts:
        after_boundary = part.lstrip(b" \t")  # RFC 2046 allows transport padding after a boundary
        if not after_boundary.startswith(b"\r\n"):
            return "a boundary line with more text after it"
        headers, end_of_headers, _ = after_boundary[2:].partition(b"\r\n\r\n")
        if not end_of_headers:
            return "a part without a header block"
        if not _names_a_field(headers):
            return "a part without a Content-Disposition naming its field"
    return None


def _names_a_field(headers: bytes) -> bool:
    for line in headers.split(b"\r\n"):
        try:
            main_value, parameters = parse_header_parameters(line.decode())
        except ValueError:  # not UTF-8, or not a header: Django skips such a line too
            continue
        name, _, _ = main_value.partition(":")
        if name.strip() == "content-disposition" and parameters.get("name", "").strip():
            return True
    return False


def _json_fields(body: bytes) -> dict[str, str]:
    parsed = _json_body(body or b"{}")
    if not isinstance(parsed, dict):
        raise InvalidField(BODY, "expected a JSON object")
    fields = {}
    for key, value in parsed.items():
        if isinstance(value, bool):
            fields[key] = "true" if value else "false"
        elif isinstance(value, (dict, list)):
            check_json(key, value)
            fields[key] = json.dumps(value)
        elif value is None:
            fields[key] = "null"
        else:
            fields[key] = str(value)
    return fields


def _json_body(body: bytes):
    """The parsed body; a body nested too deep for the parser is blamed on the field that is."""
    try:
        return json.loads(body)
    except RecursionError:
        raise InvalidField(field_name(_deep_field(body)), f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        raise InvalidField(BODY, "not valid JSON") from None


def _deep_field(body: bytes) -> str:
    """The top-level key whose value nests too deep (only run on a body the parser gave up on)."""
    text = body.decode("utf-8", errors="replace")
    depth, key, candidate, in_string, escaped, start = 0, BODY, '""', False, False, 0
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                if depth == 1:
                    candidate = text[start : index + 1]
            continue
        if char == '"':
            in_string, start = True, index
        elif char == ":" and depth == 1:
            try:
                key = json.loads(candidate)
            except ValueError:
                key = BODY
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH + 1:
                return key or BODY
        elif char in "]}":
            depth -= 1
    return BODY
