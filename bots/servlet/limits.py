"""Request bodies bounded before they are read: one rule for every server that runs the platform.

Each URL has a body limit (`limit_for`):

- chat calls (`/servlet/api/chat/…`, `/api/chat/…`, `/servlet/chatHttp`, `/chatHttp`): CHAT_BODY_MAX_BYTES,
  64 KB by default. The largest legitimate one is `chat/error`, whose fields the view keeps up to about
  32,000 characters (a 20,000-character stack trace, a 10,000-character message): form-encoded, a real
  JavaScript stack trace of that size makes a body of about 37 KB, so 64 KB leaves room and still refuses
  a hostile body after one socket read;
- the knowledge-base, bot-data and gallery imports: KB_UPLOAD_MAX_BYTES (50 MB), the same limit
  knowledge/api/uploads.py checks again while the file streams to disk; the back office's import page
  (knowledge/backoffice/exchange.py) too;
- the chatbox's file upload (`/servlet/fileupload`, `/fileupload`): CHAT_UPLOAD_MAX_BYTES (10 MB), the
  same limit livechat/uploads checks again on the file it received;
- everything else (the back office's forms, the other servlet calls): DATA_UPLOAD_MAX_MEMORY_SIZE (5 MB).
  The back office's only large upload is the knowledge base import above.

A body over its limit is refused with 413 and the servlet error shape (`TOO_LARGE`, `maxBytes`), and the
connection is closed, so a server never reads the rest of it:

- `BodyLimitMiddleware` (ASGI, around the whole application in config/asgi.py) refuses on the declared
  Content-Length before calling the application. A chunked body (no Content-Length) it reads first, up to
  the limit (413 there), into a spooled file, and gives the application with its length, as Django needs
  for a multipart body; any other body without a length is counted as the server hands it over (413 at
  the limit, and the application is told the client is gone). This is all uvicorn needs: it reads a
  request body only as the application asks for it (64 KB ahead at most).
- daphne cannot be helped by an ASGI middleware alone: Twisted stores the whole body (in a temporary file
  above 100 kB) and, for a POST, parses a form or multipart body into `request.args` in memory, before
  daphne gives the application its first byte. `install_daphne_guard` makes daphne build its requests
  from a subclass of its own `WebRequest` that applies the same rule as the headers end and as each piece
  of body arrives, stops reading the socket, answers 413 itself and closes; and it turns off Twisted's form
  parsing (daphne never uses `request.args`). The `daphne` app in INSTALLED_APPS imports daphne's server
  in every process, so the class is swapped in every process; only daphne ever builds requests from it.
- `BodyLimitWSGIMiddleware` does the same for config/wsgi.py, and gives Django a chunked body (which
  Django's WSGI handler would otherwise read as empty) once it has been read up to the limit. A WSGI
  application may not send `Connection: close` (a hop-by-hop header): gunicorn's sync worker closes the
  connection after every request, so the rest of a refused body is never read.

The paths compared are the application's own (without a root path or SCRIPT_NAME the server strips), the
same Django routes on.

A body under its limit to an upload URL whose view would refuse the caller anyway (no credentials, another
account's bot…) is answered from its headers before it is read: before_body.py, wired here and in
config/wsgi.py after the 413 (which needs no database work) and before a chunked body is read.
"""

import logging
import re
import sys
import tempfile
from dataclasses import dataclass
from http import HTTPStatus
from io import BytesIO
from urllib.parse import unquote, urlsplit

from django.conf import settings

from bots.servlet.errors import error_response

log = logging.getLogger(__name__)

KB = 1024
MB = 1024 * 1024
CHAT_DEFAULT = 64 * KB
OTHER_DEFAULT = 5 * MB
# Seconds a refused connection stays open, not read, before it is closed: closing a socket that still has
# unread bytes sends a reset, which can make the client drop the 413 it has not read yet.
LINGER_SECONDS = 2.0
READ_BYTES = 64 * KB

CHAT_PATH = re.compile(r"^/(?:servlet/)?(?:api/chat/|chatHttp/?$)")
IMPORT_PATH = re.compile(
    r"^/(?:(?:servlet/)?api/bot/(?:knowledgebase|data|gallery)/import/|admin/knowledge/exchange/[0-9]+/import/)"
)
UPLOAD_PATH = re.compile(r"^/(?:servlet/)?fileupload/?$")
UPLOAD_DEFAULT = 10 * MB
STATUS_LINE = f"413 {HTTPStatus(413).phrase}"


@dataclass(frozen=True)
class Limit:
    max_bytes: int
    setting: str
    what: str


def limit_for(path: str) -> Limit:
    """The body limit of a URL path (percent-decoded, without the query string and the root path)."""
    if CHAT_PATH.match(path):
        return Limit(
            getattr(settings, "CHAT_BODY_MAX_BYTES", None) or CHAT_DEFAULT, "CHAT_BODY_MAX_BYTES", "a chat call"
        )
    if IMPORT_PATH.match(path):
        return Limit(settings.KB_UPLOAD_MAX_BYTES, "KB_UPLOAD_MAX_BYTES", "an import")
    if UPLOAD_PATH.match(path):
        return Limit(upload_max_bytes(), "CHAT_UPLOAD_MAX_BYTES", "a file sent from the chatbox")
    # Django's own limit on a form body; None there means "no limit", which a server cannot afford.
    other = getattr(settings, "DATA_UPLOAD_MAX_MEMORY_SIZE", None) or OTHER_DEFAULT
    return Limit(other, "DATA_UPLOAD_MAX_MEMORY_SIZE", "this URL")


def upload_max_bytes() -> int:
    """The largest file a visitor may send from the chatbox (the whole multipart body)."""
    return getattr(settings, "CHAT_UPLOAD_MAX_BYTES", None) or UPLOAD_DEFAULT


def _size(count: int) -> str:
    if count >= MB and count * 10 % MB == 0:
        return f"{count / MB:g} MB"
    if count >= KB and count % KB == 0:
        return f"{count // KB} KB"
    return f"{count} bytes"


def refusal(limit: Limit, path: str, origin: bytes | None) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """Headers and body of the 413: the servlet error shape, readable by a chatbox on another site."""
    response = error_response(
        413,
        "TOO_LARGE",
        f"The request body is larger than this server accepts for {limit.what} "
        f"({_size(limit.max_bytes)}, setting {limit.setting}).",
        maxBytes=limit.max_bytes,
    )
    body = response.content
    headers = [
        (b"content-type", response["Content-Type"].encode("latin-1")),
        (b"content-length", str(len(body)).encode()),
        (b"x-content-type-options", b"nosniff"),
        # The rest of the body is never read, so the connection cannot carry another request.
        (b"connection", b"close"),
    ]
    return headers + cors_headers(path, origin), body


def cors_headers(path: str, origin: bytes | None) -> list[tuple[bytes, bytes]]:
    """What django-cors-headers would add (the 413 never reaches it), so the chatbox's script sees the error."""
    if not origin or not re.match(getattr(settings, "CORS_URLS_REGEX", r"^.*$"), path):
        return []
    if getattr(settings, "CORS_ALLOW_ALL_ORIGINS", False):
        return [(b"access-control-allow-origin", b"*")]
    if origin.decode("latin-1") in getattr(settings, "CORS_ALLOWED_ORIGINS", ()):
        return [(b"access-control-allow-origin", origin), (b"vary", b"origin")]
    return []


DIGITS = re.compile(r"[0-9]+")


def declared_length(value: bytes | str | None) -> int | None:
    """The Content-Length, or None when absent or unreadable (the server itself refuses a malformed one)."""
    if value is None:
        return None
    text = (value.decode("latin-1") if isinstance(value, bytes) else value).strip()
    # ASCII digits only: str.isdigit() also accepts "²", which int() does not.
    return int(text) if DIGITS.fullmatch(text) else None


def without_root(path: str, root: str) -> str:
    """The path under a root path the server was given (e.g. `--root-path /bots`), as Django routes it."""
    root = root.rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        return path[len(root) :] or "/"
    return path


# --- ASGI ---------------------------------------------------------------------------------------------


class BodyLimitMiddleware:
    """ASGI middleware: 413 on a declared length over the limit before the application runs; a chunked
    body is read up to the limit first and handed over with its length (as under WSGI: Django reads a
    multipart body without a Content-Length as empty, so a chunked upload would lose its file); any other
    body without a length is counted as it arrives and refused at the limit."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.application(scope, receive, send)
        path = without_root(scope.get("path", "/"), scope.get("root_path", ""))
        limit = limit_for(path)
        headers = dict(scope.get("headers") or ())
        origin = headers.get(b"origin")
        declared = declared_length(headers.get(b"content-length"))
        if declared is not None and declared > limit.max_bytes:
            return await self._refuse(send, limit, path, origin)
        if declared is None and b"chunked" in headers.get(b"transfer-encoding", b"").lower():
            return await self._with_length(scope, receive, send, limit, path, origin)

        received = 0
        refused = False
        response_started = False

        async def bounded_receive():
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit.max_bytes:
                    refused = True
                    if not response_started:
                        await self._refuse(send, limit, path, origin)
                    # The application stops as for a client that left (Django raises RequestAborted).
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message):
            nonlocal response_started
            if refused:
                return  # the 413 was the answer
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        return await self.application(scope, bounded_receive, guarded_send)

    async def _with_length(self, scope, receive, send, limit, path, origin):
        """Read a chunked body up to the limit (in memory up to FILE_UPLOAD_MAX_MEMORY_SIZE, then on disk),
        then run the application with a Content-Length and the body played back from the file."""
        spool = tempfile.SpooledTemporaryFile(max_size=getattr(settings, "FILE_UPLOAD_MAX_MEMORY_SIZE", MB))  # noqa: SIM115
        try:
            size = 0
            more_body = True
            while more_body:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client left: there is no one to answer
                piece = message.get("body", b"")
                size += len(piece)
                if size > limit.max_bytes:
                    return await self._refuse(send, limit, path, origin)
                spool.write(piece)
                more_body = message.get("more_body", False)
            spool.seek(0)
            headers = [(name, value) for name, value in scope["headers"] if name != b"transfer-encoding"]
            headers.append((b"content-length", str(size).encode()))
            played = False

            async def played_back():
                nonlocal played
                if played:
                    return await receive()  # then the server's own messages (http.disconnect)
                piece = spool.read(READ_BYTES)
                played = spool.tell() >= size
                return {"type": "http.request", "body": piece, "more_body": not played}

            return await self.application({**scope, "headers": headers}, played_back, send)
        finally:
            spool.close()

    @staticmethod
    async def _refuse(send, limit, path, origin):
        headers, body = refusal(limit, path, origin)
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def bounded_bodies(application):
    """The ASGI application with every request body bounded, and an upload its view would refuse answered
    from its headers (before_body.py); inside daphne, daphne's own reading too."""
    from .before_body import BeforeBodyMiddleware  # it imports this module

    install_daphne_guard()
    # The 413 first (no database work), then the view's own refusal, then a chunked body read.
    return BeforeBodyMiddleware(BodyLimitMiddleware(application))


# --- daphne (Twisted) ---------------------------------------------------------------------------------


def install_daphne_guard() -> bool:
    """Make daphne build its requests from `BoundedWebRequest`, when daphne's server is loaded (by the daphne
    command, and by the `daphne` app of INSTALLED_APPS, which installs Twisted's reactor in any case): never
    importing Twisted where it is not. daphne's HTTPFactory looks its request class up in its module on
    every connection, so replacing that name is the one change needed."""
    if "daphne.server" not in sys.modules:
        return False
    from daphne import http_protocol

    if getattr(http_protocol.WebRequest, "bounds_bodies", False):
        return True
    from .before_body_daphne import checked_web_request  # it imports this module

    # The body limit's 413 first, then the view's own refusal from the headers (before_body.py).
    http_protocol.WebRequest = checked_web_request(_bounded_web_request(http_protocol.WebRequest))
    return True


def _bounded_web_request(web_request):
    from twisted.web import http

    class BoundedWebRequest(web_request):
        """daphne's request with the body limit applied while Twisted receives the body (HTTP/1.x).

        Twisted calls `gotLength` once the headers are in (the request line and headers are parsed, the
        declared length known, nothing of the body stored yet) and `handleContentChunk` for each piece of
        body. Over the limit, the request writes its 413 straight to the socket, stops reading it, ignores
        whatever was already buffered, never reaches daphne's `process` (so the application never runs),
        and closes the connection after LINGER_SECONDS.
        """

        bounds_bodies = True

        def __init__(self, *args, **kwargs):
            # Twisted would parse a form or multipart POST into request.args in memory (about ten times
            # the body for a large multipart one); daphne never reads request.args.
            kwargs.setdefault("parsePOSTFormSubmission", False)
            self._body_limit = None
            self._body_path = "/"
            self._body_received = 0
            self._body_refused = False
            super().__init__(*args, **kwargs)

        def gotLength(self, length):
            # HTTP/2 streams (daphne with TLS and h2) have no request line on a channel: not bounded here,
            # the ASGI middleware still refuses them, after Twisted has stored the body.
            if isinstance(self.channel, http.HTTPChannel):
                root = getattr(getattr(self, "server", None), "root_path", "") or ""  # daphne's --root-path
                self._body_path = without_root(request_path(getattr(self.channel, "_path", b"/")), root)
                self._body_limit = limit_for(self._body_path)
                if length is not None and length > self._body_limit.max_bytes:
                    # Twisted answers "100 Continue" after this method: the client must not be invited.
                    self.requestHeaders.removeHeader(b"Expect")
                    self.content = BytesIO()
                    self._refuse_body()
                    return
            super().gotLength(length)

        def handleContentChunk(self, data):
            if self._body_refused:
                return
            if self._body_limit is not None:
                self._body_received += len(data)
                if self._body_received > self._body_limit.max_bytes:
                    self._refuse_body()
                    return
            super().handleContentChunk(data)

        def requestReceived(self, command, path, version):
            if self._body_refused:
                return  # the end of a refused body was already buffered: never processed
            super().requestReceived(command, path, version)

        def _refuse_body(self):
            self._body_refused = True
            origin = (self.requestHeaders.getRawHeaders(b"Origin") or [None])[0]
            headers, body = refusal(self._body_limit, self._body_path, origin)
            answer_and_close(self.channel, STATUS_LINE, headers, body)
            log.info(
                "refused a request body over %s bytes for %s (setting %s)",
                self._body_limit.max_bytes,
                self._body_path,
                self._body_limit.setting,
            )

    BoundedWebRequest.__name__ = BoundedWebRequest.__qualname__ = "BoundedWebRequest"
    return BoundedWebRequest


def answer_and_close(channel, status_line: str, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    """Write an answer straight to a Twisted HTTP channel's socket, read nothing more from it (anything
    Twisted already holds is dropped), and close it after LINGER_SECONDS."""
    from twisted.internet import reactor

    transport = channel.transport
    head = [f"HTTP/1.1 {status_line}".encode()] + [name + b": " + value for name, value in headers]
    transport.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
    transport.pauseProducing()
    channel.dataReceived = lambda data: None
    if hasattr(transport, "loseWriteConnection"):
        transport.loseWriteConnection()  # the client sees the end of the answer at once
    reactor.callLater(LINGER_SECONDS, transport.loseConnection)


def request_path(target: bytes) -> str:
    """The percent-decoded path of a request target (origin form, or absolute form through a proxy)."""
    text = target.decode("latin-1")
    if not text.startswith("/"):
        text = urlsplit(text).path or "/"
    return unquote(text.split("?", 1)[0])


# --- WSGI ---------------------------------------------------------------------------------------------


class BodyLimitWSGIMiddleware:
    """WSGI middleware: 413 on a declared length over the limit before anything is read; a chunked body
    (no Content-Length) is read up to the limit into a spooled file and handed to Django with its length."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "/") or "/"  # without SCRIPT_NAME, as Django routes it
        limit = limit_for(path)
        origin = environ.get("HTTP_ORIGIN")
        origin = origin.encode("latin-1") if origin else None
        declared = declared_length(environ.get("CONTENT_LENGTH") or None)
        if declared is not None and declared > limit.max_bytes:
            return self._refuse(start_response, limit, path, origin)
        if declared is None and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            body = self._read_chunked(environ["wsgi.input"], limit.max_bytes)
            if body is None:
                return self._refuse(start_response, limit, path, origin)
            environ["wsgi.input"] = body
            environ["CONTENT_LENGTH"] = str(body.tell())
            body.seek(0)
        return self.application(environ, start_response)

    @staticmethod
    def _read_chunked(stream, max_bytes: int):
        # Handed to Django, which closes it with the request.
        spool = tempfile.SpooledTemporaryFile(max_size=getattr(settings, "FILE_UPLOAD_MAX_MEMORY_SIZE", MB))  # noqa: SIM115
        received = 0
        while chunk := stream.read(READ_BYTES):
            received += len(chunk)
            if received > max_bytes:
                spool.close()
                return None
            spool.write(chunk)
        return spool

    @staticmethod
    def _refuse(start_response, limit, path, origin):
        headers, body = refusal(limit, path, origin)
        start_response(
            STATUS_LINE,
            [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers if name != b"connection"],
        )
        return [body]
