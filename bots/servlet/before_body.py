"""Uploads answered from their headers before their body is read: a caller the view would refuse anyway
(no or wrong credentials 401, another account's bot or a role that may not 403, an unknown bot 404, a bad
path segment 400, a chatbox file for no live dialog 404) gets that answer at once, and the connection is
closed without the server reading the file it sends.

A view that takes a large body names, as its `before_body(request, **url_kwargs)`, the checks it makes
before it reads the body (the import views: who asks, which bot, whether they may; the chatbox's file
upload: which dialog, which origin), and calls them itself too, so the two can never differ. Here they run
on a request made of the headers alone (its body is empty and never read): raising a ServletError or
returning a response refuses, anything else lets the request go on to the application, which checks again
and reads the body. A request with a body in a method the view does not answer gets the view's 405 the
same way. Credentials and the database are checked on a thread (never the event loop), through the same
accounts.permissions functions as the view, so a wrong password counts in the failed-login guard once.

Wired in front of the application under every server (bots/servlet/limits.py): `BeforeBodyMiddleware`
(ASGI: uvicorn reads a body only as the application asks for it), `BeforeBodyWSGIMiddleware` (gunicorn's
sync worker closes the connection after the answer), and daphne's own reading (before_body_daphne.py).
A body declared over its URL's limit is left to the 413, which costs no database work.
"""

import asyncio
import functools
import logging
from dataclasses import dataclass, field
from io import BytesIO

from asgiref.sync import sync_to_async
from django.core.exceptions import SuspiciousOperation
from django.core.handlers.asgi import ASGIRequest
from django.core.handlers.wsgi import WSGIRequest
from django.db import connections
from django.http import HttpResponse, HttpResponseBase
from django.urls import Resolver404, resolve
from rest_framework.exceptions import MethodNotAllowed

from bots.status import services

from . import limits
from .errors import ServletError, drf_exception_handler, servlet_bad_request
from .middleware import outage_response, unavailable_response
from .params import check_text

log = logging.getLogger(__name__)

# Methods whose body a view may read; anything else with a body is answered by the view's 405.
BODY_METHODS = ("post", "put", "patch", "delete")


@dataclass(frozen=True)
class Door:
    """The view a request with a body is going to, and its URL's arguments."""

    view_class: type
    kwargs: dict = field(default_factory=dict)

    def answers(self, method: str) -> bool:
        return method.lower() in BODY_METHODS and hasattr(self.view_class, method.lower())


def door_for(path: str) -> Door | None:
    """The door of a request with a body, when its view checks before reading bodies; else None."""
    if limits.CHAT_PATH.match(path):
        return None  # chat calls are small (CHAT_BODY_MAX_BYTES) and anonymous: nothing to check first
    found = _view_of(path)
    if found is None:
        return None
    view_class, kwargs = found
    return Door(view_class, dict(kwargs))


@functools.lru_cache(maxsize=1024)
def _view_of(path: str) -> tuple[type, tuple] | None:
    try:
        match = resolve(path)
    except Resolver404:
        return None
    view_class = getattr(match.func, "view_class", None)
    if view_class is None or not hasattr(view_class, "before_body"):
        return None
    return view_class, tuple(match.kwargs.items())


def has_body(content_length: int | None, transfer_encoding: str) -> bool:
    return (content_length or 0) > 0 or "chunked" in transfer_encoding.lower()


def answer_before_body(door: Door, request) -> HttpResponseBase | None:
    """The view's answer from the headers alone, or None to let the request go on. Runs on a thread; its
    database connection is given back as channels' database_sync_to_async does."""
    _close_old_connections()
    try:
        return _answer(door, request)
    finally:
        _close_old_connections()


def _close_old_connections() -> None:
    """Django's close_old_connections, but never a connection inside a transaction: the WSGI middleware runs
    in the caller's thread, where a test's transaction wraps the request (closing it ended the test's
    transaction: every later query failed, on PostgreSQL; a served request is never inside one)."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:
            conn.close_if_unusable_or_obsolete()


def _answer(door: Door, request) -> HttpResponseBase | None:
    if services.database_down():
        return unavailable_response(request)
    try:
        request.get_host()  # a Host outside ALLOWED_HOSTS: the 400 the application would answer
        for name, value in door.kwargs.items():
            if isinstance(value, str):
                check_text(name, value)  # as ServletView.initial does with path segments
        if not door.answers(request.method):
            return _not_allowed(door, request.method)
        answered = door.view_class.before_body(request, **door.kwargs)
    except ServletError as error:
        return error.response()
    except SuspiciousOperation as error:
        return servlet_bad_request(error)
    except Exception as error:
        outage = outage_response(request, error)
        if outage is not None:
            return outage
        # The application checks again, with its own error handling: the request goes on.
        log.exception("Checking %s %s before its body failed", request.method, request.path)
        return None
    return answered if isinstance(answered, HttpResponse) else None


def _not_allowed(door: Door, method: str) -> HttpResponseBase:
    """The 405 the view answers through DRF, with its Allow header."""
    response = drf_exception_handler(MethodNotAllowed(method), {})
    response["Allow"] = ", ".join(door.view_class().allowed_methods)
    return response


def raw_answer(response: HttpResponseBase, path: str, origin: bytes | None):
    """(status, headers, body) of an answer sent before the body: its own headers, the CORS header the
    application would add, and Connection: close (the body is never read, so the connection is done)."""
    body = response.content
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
    names = {name for name, _ in headers}
    headers = [(name, value) for name, value in headers if name != b"content-length"]
    headers.append((b"content-length", str(len(body)).encode()))
    if b"x-content-type-options" not in names:
        headers.append((b"x-content-type-options", b"nosniff"))
    headers.append((b"connection", b"close"))
    return response.status_code, headers + limits.cors_headers(path, origin), body


# --- ASGI ---------------------------------------------------------------------------------------------


class BeforeBodyMiddleware:
    """ASGI middleware: the view's answer from the headers, before the body is asked for."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.application(scope, receive, send)
        headers = dict(scope.get("headers") or ())
        declared = limits.declared_length(headers.get(b"content-length"))
        path = limits.without_root(scope.get("path", "/"), scope.get("root_path", ""))
        if (
            not has_body(declared, headers.get(b"transfer-encoding", b"").decode("latin-1"))
            or (declared is not None and declared > limits.limit_for(path).max_bytes)
            or (door := door_for(path)) is None
        ):
            return await self.application(scope, receive, send)
        response = await sync_to_async(answer_asgi, thread_sensitive=False)(door, scope)
        if response is None:
            return await self.application(scope, receive, send)
        status, answer_headers, body = raw_answer(response, path, headers.get(b"origin"))
        await send({"type": "http.response.start", "status": status, "headers": answer_headers})
        await send({"type": "http.response.body", "body": body, "more_body": True})
        # The answer is whole (its Content-Length); the server closes the connection at the end of the
        # response. Closed at once, a socket with unread bytes sends a reset, which nginx, still passing the
        # body on, took for a failed worker (503 to the client): closed LINGER_SECONDS later instead, while
        # the server reads no more than its flow control lets in (uvicorn: 64 KB).
        await asyncio.sleep(limits.LINGER_SECONDS)
        await send({"type": "http.response.body", "body": b""})


def answer_asgi(door: Door, scope) -> HttpResponseBase | None:
    """answer_before_body for an ASGI scope (uvicorn's, or the one daphne will give)."""
    try:
        request = ASGIRequest(scope, BytesIO())  # the headers; the body stays unread
    except UnicodeDecodeError:
        return None  # a query string that is not UTF-8: Django's own answer, from the application
    return answer_before_body(door, request)


# --- WSGI ---------------------------------------------------------------------------------------------


class BeforeBodyWSGIMiddleware:
    """WSGI middleware: the view's answer from the headers, before wsgi.input is read."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "/") or "/"
        declared = limits.declared_length(environ.get("CONTENT_LENGTH") or None)
        if (
            not has_body(declared, environ.get("HTTP_TRANSFER_ENCODING", ""))
            or (declared is not None and declared > limits.limit_for(path).max_bytes)
            or (door := door_for(path)) is None
        ):
            return self.application(environ, start_response)
        request = WSGIRequest({**environ, "wsgi.input": BytesIO()})  # the headers; the body stays unread
        response = answer_before_body(door, request)
        if response is None:
            return self.application(environ, start_response)
        origin = environ.get("HTTP_ORIGIN")
        status, headers, body = raw_answer(response, path, origin.encode("latin-1") if origin else None)
        start_response(
            f"{status} {response.reason_phrase}",
            # A WSGI application may not send Connection (hop-by-hop): the sync worker closes anyway.
            [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers if name != b"connection"],
        )
        return [body]
