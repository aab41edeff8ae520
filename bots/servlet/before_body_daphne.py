"""Under daphne, an upload its view would refuse is answered from its headers before Twisted reads the body
(before_body.py says what is checked; this is the daphne side of it).

Twisted reads and stores a whole request body before daphne gives the application its first byte, and
daphne then hands the application the whole body at once, in memory: a middleware would only see the
request after that. So daphne builds its requests from `checked_web_request`'s class (installed with the
body limit's, bots/servlet/limits.py): once the headers are in (`gotLength`), a request with a body to a
view that checks before the body stops reading its socket and runs the view's checks on Twisted's thread
pool; the little body that arrived with the headers is held meanwhile. Refused, the view's answer goes
straight to the socket and the connection is closed, unread; let through, the held bytes go on to Twisted
as if nothing had happened, reading resumes, and a client that asked for "100 Continue" gets it then.
"""

import logging
from urllib.parse import unquote

from . import limits
from .before_body import answer_asgi, door_for, has_body, raw_answer

log = logging.getLogger(__name__)


def checked_web_request(web_request):
    """daphne's request class (already bounded by the body limit) with the view's checks before the body."""
    from daphne.utils import parse_x_forwarded_for
    from twisted.internet import threads
    from twisted.web import http

    class CheckedWebRequest(web_request):
        def __init__(self, *args, **kwargs):
            self._checking = False  # the view's checks are running: body pieces are held
            self._held: list[bytes] = []
            self._held_end = None  # requestReceived's arguments, when the whole body came meanwhile
            self._check_refused = False
            self._continue = False  # the client waits for "100 Continue" before it sends the body
            super().__init__(*args, **kwargs)

        def gotLength(self, length):
            super().gotLength(length)  # the body limit: a body declared too large is refused here first
            if getattr(self, "_body_refused", False) or not isinstance(self.channel, http.HTTPChannel):
                return
            encoding = b",".join(self.requestHeaders.getRawHeaders(b"Transfer-Encoding") or [])
            if not has_body(length, encoding.decode("latin-1")):
                return
            path = limits.without_root(limits.request_path(self.channel._path), self._root_path())
            door = door_for(path)
            if door is None:
                return
            self._checking = True
            self._check_path = path
            # Twisted answers "100 Continue" right after this method: only a request let through gets it.
            expect = self.requestHeaders.getRawHeaders(b"Expect") or []
            self._continue = (
                bool(expect) and expect[0].lower() == b"100-continue" and self.channel._version == b"HTTP/1.1"
            )
            self.requestHeaders.removeHeader(b"Expect")
            self.channel.transport.pauseProducing()
            checked = threads.deferToThread(answer_asgi, door, self._scope(path))
            checked.addCallbacks(self._checked, self._check_failed)

        def handleContentChunk(self, data):
            if self._check_refused:
                return
            if self._checking:
                # What arrived with the headers (one socket read at most): reading stays paused.
                self._held.append(data)
                self.channel.transport.pauseProducing()
                return
            super().handleContentChunk(data)

        def requestReceived(self, command, path, version):
            if self._check_refused:
                return
            if self._checking:
                self._held_end = (command, path, version)
                return
            super().requestReceived(command, path, version)

        def _checked(self, response):
            if self.channel is None or getattr(self, "_disconnected", False):
                return  # the client left while the checks ran
            self._checking = False
            if response is None:
                return self._go_on()
            self._check_refused = True
            origin = (self.requestHeaders.getRawHeaders(b"Origin") or [None])[0]
            status, headers, body = raw_answer(response, self._check_path, origin)
            limits.answer_and_close(self.channel, f"{status} {response.reason_phrase}", headers, body)
            log.info("answered %s before its body was read (%s)", self._check_path, status)

        def _check_failed(self, failure):
            log.error("Checking a request before its body failed: %s", failure.getTraceback())
            if self.channel is not None and not getattr(self, "_disconnected", False):
                self._checking = False
                self._go_on()

        def _go_on(self):
            held, self._held = self._held, []
            for piece in held:
                self.handleContentChunk(piece)
            if self._held_end is not None:
                end, self._held_end = self._held_end, None
                self.requestReceived(*end)
            elif self._continue:
                self.channel._send100Continue()
            if self.channel is not None and self.channel.transport is not None:
                self.channel.transport.resumeProducing()

        def _root_path(self) -> str:
            root = getattr(getattr(self, "server", None), "root_path", "") or ""  # daphne's --root-path
            header = self.requestHeaders.getRawHeaders(b"Daphne-Root-Path")
            return unquote(header[0].decode("latin-1")) if header else root

        def _scope(self, path: str) -> dict:
            """The ASGI scope daphne would give the application, from what is known once the headers are in."""
            target = self.channel._path
            query = target.split(b"?", 1)[1] if b"?" in target else b""
            client = [str(self.client.host), self.client.port] if hasattr(self.client, "host") else None
            scheme = "https" if self.isSecure() else "http"
            server = getattr(self, "server", None)
            if server is not None and server.proxy_forwarded_address_header:
                client, scheme = parse_x_forwarded_for(
                    self.requestHeaders,
                    server.proxy_forwarded_address_header,
                    server.proxy_forwarded_port_header,
                    server.proxy_forwarded_proto_header,
                    client,
                    scheme,
                )
            return {
                "type": "http",
                "method": self.channel._command.decode("latin-1"),
                "path": path,
                "root_path": "",
                "scheme": scheme,
                "query_string": query,
                "headers": [
                    (name.lower(), value)
                    for name, values in self.requestHeaders.getAllRawHeaders()
                    if b"_" not in name  # as daphne drops them (CVE-2015-0219)
                    for value in values
                ],
                "client": client,
                "server": [str(self.host.host), self.host.port] if hasattr(self.host, "host") else None,
            }

    CheckedWebRequest.__name__ = CheckedWebRequest.__qualname__ = "CheckedWebRequest"
    return CheckedWebRequest
