"""Turns servlet failures into JSON errors, so no servlet caller ever gets an HTML error page, and a
shared service that is down into 503 + Retry-After, never 500.

Database down (bots/status/services.py watches it):
- a request that meets a database error answers 503 `DATABASE_UNAVAILABLE` with Retry-After, whatever
  its path (ServletErrorMiddleware for errors raised in a view, ServiceOutageMiddleware for those
  raised by another middleware, such as a session saved on the way out);
- once the database is known to be unreachable, every request is answered 503 at once, without
  waiting for a database connection, until the database answers again;
- the server status still answers, 200 with `status: Ko` and the failing checks named: credentials
  cannot be checked meanwhile, so every caller gets what an anonymous one gets.
Shared cache down: what keeps state in it falls back to the process (accounts/lockout.py,
knowledge/exchange/exports.py); a cache error that still reaches here answers 503 `CACHE_UNAVAILABLE`.
"""

import json
import logging
import re
import sys

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpResponse

from bots.status import report, services

from .envelope import plain_json
from .errors import ServletError, error_response, servlet_bad_request

log = logging.getLogger(__name__)

SERVLET_PREFIXES = ("/servlet/", "/api/", "/chatHttp", "/history", "/fileupload")
SERVER_STATUS = re.compile(r"^/(?:servlet/)?api/serverstatus/?$")


def is_servlet_path(path: str) -> bool:
    return path.startswith(SERVLET_PREFIXES)


class ServletErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # A page a person reads (the printable transcript, the upload's answer) keeps its own 404 page.
        if getattr(response, "servlet_page", False):
            return response
        if response.status_code == 404 and is_servlet_path(request.path) and not _is_json(response):
            return error_response(404, "NOT_FOUND", f"No servlet answers at {request.path}.")
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, ServletError):
            return exception.response()
        outage = outage_response(request, exception)
        if outage is not None:
            return outage
        if not is_servlet_path(request.path):
            return None
        if isinstance(exception, RequestDataTooBig):
            return error_response(413, "TOO_LARGE", "The request body is larger than this server accepts.")
        if isinstance(exception, SuspiciousOperation):
            return servlet_bad_request(exception)
        if isinstance(exception, Http404):
            return error_response(404, "NOT_FOUND", str(exception) or "Not found.")
        log.exception("Unexpected failure on %s", request.path)
        return error_response(500, "INTERNAL_ERROR", "The server failed to answer; the failure is logged.")


class ServiceOutageMiddleware:
    """Outermost of the middlewares that may touch the database (after CORS, so that a chatbox on
    another site can read the 503): answers at once while the database is known to be down, and turns
    the 500 of a database error raised by an inner middleware into the 503."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if services.database_down():
            return unavailable_response(request)
        response = self.get_response(request)
        failure = getattr(request, "_service_failure", None)
        if failure is not None and response.status_code == 500:
            return outage_response(request, failure) or response
        return response


def remember_failure(sender, request=None, **kwargs):
    """got_request_exception: Django turns an exception raised by a middleware into a 500 page and
    sends this signal while handling it; the outage middleware above then sees which error it was."""
    error = sys.exc_info()[1]
    if request is not None and error is not None and _is_outage(error):
        request._service_failure = error


def outage_response(request, error):
    """The answer to a request that met `error`, if the error is a shared service's, else None."""
    if services.is_database_failure(error):
        if services.database.failed(error):
            report.forget()
        else:
            # Not about reaching the database (a deadlock, SQLite busy): this request only.
            log.warning("Database error on %s, answered 503", request.path, exc_info=error)
        return unavailable_response(request, error)
    if services.is_cache_outage(error):
        services.cache_failed(error, f"the request {request.method} {request.path}")
        return _with_retry_after(
            error_response(
                503,
                "CACHE_UNAVAILABLE",
                "A shared service of this server is unreachable; try again in a few seconds.",
                retryAfter=services.RETRY_AFTER_SECONDS,
            )
        )
    return None


def unavailable_response(request, error=None):
    """503 with Retry-After; the server status answers its summary instead (status Ko, the failing
    checks named), which needs neither the database nor the caller's credentials."""
    if SERVER_STATUS.match(request.path):
        body = report.summary()
        if request.GET.get("pretty") == "true":
            return HttpResponse(json.dumps(body, indent=2, ensure_ascii=False) + "\n", content_type="application/json")
        return plain_json(body)
    return _with_retry_after(
        error_response(
            503,
            "DATABASE_UNAVAILABLE",
            "The database is unavailable; try again in a few seconds.",
            retryAfter=services.RETRY_AFTER_SECONDS,
        )
    )


def _is_outage(error) -> bool:
    return services.is_database_failure(error) or services.is_cache_outage(error)


def _with_retry_after(response):
    response["Retry-After"] = str(services.RETRY_AFTER_SECONDS)
    return response


def _is_json(response) -> bool:
    return response.get("Content-Type", "").startswith("application/json")
