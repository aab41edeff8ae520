"""Reading servlet parameters: form, query string or JSON body, with every alias the clients use.

The chatbox spells the same field several ways (contextId / contextUUID / contextUuid / ctx) and
sends empty values as the literal text "null" on some calls (client-contract.md §1.4, §6.2).

Every field of every servlet call (and of every websocket frame, through the same ServletParams) is
read here, so this is where hostile input is refused, before any view acts on it, with a 400 that
names the field:
- a NUL character anywhere (PostgreSQL cannot store one: the insert failed after the dialog was made);
- a lone surrogate (a JSON body may spell one as "\\ud800"; it cannot be encoded as UTF-8, so it could
  be neither stored nor answered);
- bytes that are not UTF-8 in a form field or the query string, percent-encoded (`%FF`, the surrogate
  `%ED%A0%80`) or raw: Django would read them as U+FFFD and store a text the visitor never wrote;
- JSON nested deeper than MAX_JSON_DEPTH, in the body or in a JSON field (variables, extraParameters):
  Python's parser recurses, and 5,000 levels raised RecursionError;
- a body that cannot be read: multipart/form-data without a boundary or otherwise broken, JSON that is
  not an object, more fields than DATA_UPLOAD_MAX_NUMBER_FIELDS.
The same checks apply to the URL's path segments (ServletView.initial).
"""

import base64
import binascii
import contextlib
import json
import re
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.core.handlers.wsgi import WSGIRequest, get_bytes_from_wsgi
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
        data = query_fields(request)
        content_type = (request.content_type or "").lower()
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            if content_type.startswith("application/json"):
                data.update(_json_fields(_body(request)))
            elif content_type.startswith("multipart/form-data"):
                data.update(_multipart_fields(request))
            elif body := _body(request):
                # Parsed by hand: some chatbox calls are not percent-encoded and come without a
                # Content-Type. Bytes that are not UTF-8 become lone surrogates (surrogateescape), which
                # utf8_fields then refuses in the field that holds them.
                text = body.decode("utf-8", errors="surrogateescape")
                if unencoded_keys is not None and not PERCENT_ENCODED.match(text):
                    data.update(utf8_fields(unencoded_fields(text, unencoded_keys).items()))
                    return cls(data)
                data.update(form_fields(text, BODY))
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


def query_fields(request) -> dict[str, str]:
    """The query string's fields, read as the form body is: bytes that are not UTF-8 are a 400 naming the
    field (Django's request.GET would have replaced them)."""
    request = getattr(request, "_request", request)
    if isinstance(request, WSGIRequest):
        raw = get_bytes_from_wsgi(request.environ, "QUERY_STRING", "")  # PEP 3333: the bytes as latin-1
    else:
        # Under ASGI Django decoded the raw query string as UTF-8 already (or refused the request).
        raw = request.META.get("QUERY_STRING", "").encode("utf-8", errors="surrogateescape")
    return form_fields(raw.decode("utf-8", errors="surrogateescape"), "query")


def form_fields(text: str, where: str) -> dict[str, str]:
    """The fields of an application/x-www-form-urlencoded text (percent-escapes decoded), checked to be
    UTF-8; `where` names the body or the query string when there are too many fields."""
    try:
        pairs = parse_qsl(
            text, keep_blank_values=True, max_num_fields=_max_fields(), encoding="utf-8", errors="surrogateescape"
        )
    except ValueError:
        raise InvalidField(where, "too many fields") from None
    return utf8_fields(pairs)


def utf8_fields(pairs) -> dict[str, str]:
    """The (name, value) pairs as a dict; a 400 naming the first field whose name or value holds bytes
    that were not UTF-8 (decoded with surrogateescape, they are lone surrogates here)."""
    fields = {}
    for name, value in pairs:
        for text in (name, value):
            if not text.isascii() and not _encodable(text):
                raise InvalidField(field_name(name), "contains bytes that are not UTF-8 text")
        fields[name] = value
    return fields


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
        boundary = request.content_params.get("boundary", "").encode("ascii", errors="replace")
        problem = multipart_problem(body, boundary)
        if problem:
            raise InvalidField(BODY, f"not readable as multipart/form-data ({problem})")
        # Django decoded each field with errors="replace": its bytes are checked here instead.
        not_utf8 = field_not_utf8(body, boundary)
        if not_utf8 is not None:
            raise InvalidField(field_name(not_utf8), "contains bytes that are not UTF-8 text")
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


def field_not_utf8(body: bytes, boundary: bytes) -> str | None:
    """The name of the first form field (a part without a file name) of a well-formed multipart body whose
    value is not UTF-8 text, or None. A file's bytes are its own business."""
    delimiter = b"\r\n--" + boundary
    for part in (b"\r\n" + body).split(delimiter)[1:-1]:
        headers, _, value = part.lstrip(b" \t")[2:].partition(b"\r\n\r\n")
        disposition = _header(headers, "content-disposition")
        if disposition is None or "filename" in disposition or "filename*" in disposition:
            continue
        encoding = _header(headers, "content-transfer-encoding")
        if encoding is not None and "base64" in encoding[""]:
            with contextlib.suppress(binascii.Error):  # Django's parser keeps such a value as it came
                value = base64.b64decode(value)
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            return disposition.get("name", "").strip() or BODY
    return None


def _names_a_field(headers: bytes) -> bool:
    disposition = _header(headers, "content-disposition")
    return disposition is not None and bool(disposition.get("name", "").strip())


def _header(headers: bytes, wanted: str) -> dict | None:
    """A part's header (its value under "", then its parameters), or None; lines Django skips are skipped."""
    for line in headers.split(b"\r\n"):
        try:
            main_value, parameters = parse_header_parameters(line.decode())
        except ValueError:  # not UTF-8, or not a header: Django skips such a line too
            continue
        name, _, value = main_value.partition(":")
        if name.strip() == wanted:
            return {"": value.strip(), **parameters}
    return None


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
