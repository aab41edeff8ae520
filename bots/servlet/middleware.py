"""Turns servlet failures into JSON errors, so no servlet caller ever gets an HTML error page."""

import logging

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404

from .errors import ServletError, error_response

log = logging.getLogger(__name__)

SERVLET_PREFIXES = ("/servlet/", "/api/", "/chatHttp", "/history", "/fileupload")


def is_servlet_path(path: str) -> bool:
    return path.startswith(SERVLET_PREFIXES)


class ServletErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 404 and is_servlet_path(request.path) and not _is_json(response):
            return error_response(404, "NOT_FOUND", f"No servlet answers at {request.path}.")
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, ServletError):
            return exception.response()
        if not is_servlet_path(request.path):
            return None
        if isinstance(exception, RequestDataTooBig):
            return error_response(413, "TOO_LARGE", "The request body is larger than this server accepts.")
        if isinstance(exception, SuspiciousOperation):
            return error_response(400, "BAD_REQUEST", str(exception) or "The request is malformed.")
        if isinstance(exception, Http404):
            return error_response(404, "NOT_FOUND", str(exception) or "Not found.")
        log.exception("Unexpected failure on %s", request.path)
        return error_response(500, "INTERNAL_ERROR", "The server failed to answer; the failure is logged.")


def _is_json(response) -> bool:
    return response.get("Content-Type", "").startswith("application/json")
