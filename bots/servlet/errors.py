"""One error shape for every servlet answer: {"error": <for a person>, "code": <stable code>}."""

import logging

from django.core.exceptions import DisallowedHost
from django.http import JsonResponse
from rest_framework import exceptions as drf_exceptions

log = logging.getLogger(__name__)


class ServletError(Exception):
    """A failure the caller can act on; rendered as JSON with its HTTP status."""

    status = 400
    code = "BAD_REQUEST"

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None, **extra):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        if status:
            self.status = status
        self.extra = extra

    def response(self) -> JsonResponse:
        return error_response(self.status, self.code, self.message, **self.extra)


class BadRequest(ServletError):
    status, code = 400, "BAD_REQUEST"


class MissingField(BadRequest):
    code = "MISSING_FIELD"

    def __init__(self, field: str):
        super().__init__(f"The field '{field}' is required.", field=field)


class InvalidField(BadRequest):
    code = "INVALID_FIELD"

    def __init__(self, field: str, reason: str):
        super().__init__(f"The field '{field}' is invalid: {reason}.", field=field)


class Unauthorized(ServletError):
    status, code = 401, "UNAUTHORIZED"


class Forbidden(ServletError):
    status, code = 403, "FORBIDDEN"


class NotFound(ServletError):
    status, code = 404, "NOT_FOUND"


class UnknownBot(NotFound):
    code = "UNKNOWN_BOT"

    def __init__(self, bot_uuid: str):
        super().__init__(f"No bot has the UUID '{bot_uuid}'.", botUUID=bot_uuid)


class TooLarge(ServletError):
    status, code = 413, "TOO_LARGE"


class TooManyRequests(ServletError):
    status, code = 429, "TOO_MANY_REQUESTS"


def error_response(status: int, code: str, message: str, **extra) -> JsonResponse:
    body = {"error": message, "code": code}
    body.update(extra)
    return JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})


def servlet_bad_request(exception):
    """The 400 in the servlet's error shape. A refused Host is not named back: Django's message about it is
    advice for the server's operator (add it to ALLOWED_HOSTS), not for the caller."""
    if isinstance(exception, DisallowedHost):
        return error_response(
            400,
            "INVALID_HOST",
            "The Host header names a site this server does not serve; call it by one of its own names.",
        )
    return error_response(400, "BAD_REQUEST", str(exception) or "The request is malformed.")


def drf_exception_handler(exc, context):
    """DRF's own exceptions (parse errors, method not allowed…) in the servlet error shape."""
    if isinstance(exc, ServletError):
        return exc.response()
    if isinstance(exc, drf_exceptions.APIException):
        detail = exc.detail
        message = detail if isinstance(detail, str) else str(detail)
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "BAD_REQUEST"
        response = error_response(exc.status_code, str(code).upper(), message)
        if getattr(exc, "wait", None):
            response["Retry-After"] = str(int(exc.wait))
        return response
    return None
