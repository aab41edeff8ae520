"""What a websocket may cost a server process: messages bounded per path, open sockets bounded per process.

Message limits (UTF-8 bytes of one message, however many frames carry it):

- the chatbox's socket (/servlet//chatWs, /servlet/chatWs, /chatWs): CHAT_FRAME_MAX_BYTES, 32 KB. Its
  largest legitimate frame is a talk on a bot with SAML on: every frame then carries the signed
  `saml2_info` (accounts/saml/tokens.py keeps it under 12,000 characters: 16,000 in base64), beside 600
  typed characters (the chatbox's limit; 2,400 bytes once UTF-8 and base64), the page's address (2,000
  characters: 2,700) and the other fields (under 1 KB): about 22 KB. A `typing` frame is smaller (600
  characters), a `survey` frame holds a 2,000-character long answer in 8 KB at most. 32 KB keeps 10 KB
  of headroom over the largest;
- the operators' console (/servlet/operator/ws): CONSOLE_FRAME_MAX_BYTES, 32 KB. Its largest action is
  a message of 4,000 characters (livechat/operating.py and console.js both stop there), at most 24 KB
  as JSON (a control character is escaped in 6 bytes); a canned answer goes out as such a message.

The protocol server refuses a frame over the larger of the two from the frame's header, before it reads
the payload: daphne through livechat/daphne_sockets.py, uvicorn through `ws_max_size` (deploy/worker.py).
`SocketBounds`, around the websocket routes in config/asgi.py, applies each path's own limit to every
message the server hands over: over it, the socket is closed with 1009 ("message too big") and the
consumer is told the client left, so the message is never parsed. nginx passes websocket frames through
as a byte stream, a few KB of buffer at a time: it cannot limit them, and does not need to.

Open sockets: WEBSOCKETS_PER_PROCESS. An idle chatbox socket costs a process about 42 KB (19,886 of
them took 835-848 MB, bench/LIVECHAT.md), and each holds a file descriptor. The default is 20,000 (the
platform's target, under 1 GB), never more than the process's open-file limit less 1,000: the process
keeps descriptors for HTTP (the chatbox's polling fallback, the server status), its database and Redis
connections. Past it, the next handshake is refused: 503 with Retry-After where the server offers the
ASGI `websocket.http.response` extension (uvicorn), else daphne's only refusal, 403. The chatbox then
polls over REST.
"""

import contextlib
import logging
import re
import resource
import time
from dataclasses import dataclass

from autobahn.exception import Disconnected
from django.conf import settings

from bots.servlet.errors import error_response
from bots.servlet.limits import without_root

log = logging.getLogger(__name__)

KB = 1024
CHAT_DEFAULT = 32 * KB
CONSOLE_DEFAULT = 32 * KB
SOCKETS_DEFAULT = 20_000
# Descriptors a full process keeps for everything but websockets.
DESCRIPTORS_KEPT = 1_000
MESSAGE_TOO_BIG = 1009
RETRY_AFTER_SECONDS = 5
# A refused handshake is logged at most this often (with the count since), never once per refusal.
REFUSALS_LOGGED_EVERY = 60.0

# What a server raises when the application sends on a socket already closed: uvicorn's ClientDisconnected
# (an OSError, as ASGI asks), daphne's (autobahn's) Disconnected.
CLIENT_GONE = (OSError, Disconnected)

# livechat/routing.py's console route, on the path the router matches (leading slashes removed).
CONSOLE_PATH = re.compile(r"^servlet/operator/ws/?$")


@dataclass(frozen=True)
class MessageLimit:
    max_bytes: int
    setting: str


def chat_limit() -> MessageLimit:
    return MessageLimit(getattr(settings, "CHAT_FRAME_MAX_BYTES", None) or CHAT_DEFAULT, "CHAT_FRAME_MAX_BYTES")


def console_limit() -> MessageLimit:
    return MessageLimit(
        getattr(settings, "CONSOLE_FRAME_MAX_BYTES", None) or CONSOLE_DEFAULT, "CONSOLE_FRAME_MAX_BYTES"
    )


def limit_for(path: str, root_path: str = "") -> MessageLimit:
    """The message limit of a websocket path; any path but the console's gets the chatbox's."""
    if CONSOLE_PATH.match(without_root(path, root_path).lstrip("/")):
        return console_limit()
    return chat_limit()


def server_message_max_bytes() -> int:
    """What the protocol server itself accepts in one message: one number per process, so the larger."""
    return max(chat_limit().max_bytes, console_limit().max_bytes)


def sockets_per_process() -> int:
    """The open websockets a process accepts (WEBSOCKETS_PER_PROCESS, else the default described above)."""
    chosen = getattr(settings, "WEBSOCKETS_PER_PROCESS", 0) or 0
    if chosen > 0:
        return chosen
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return SOCKETS_DEFAULT
    return max(1, min(SOCKETS_DEFAULT, soft - DESCRIPTORS_KEPT))


def message_bytes(message: dict) -> int:
    """A received message's size as the server read it (UTF-8 for text)."""
    text = message.get("text")
    if text is not None:
        # An ASCII string's length is its size; only other text needs encoding to be measured.
        return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    return len(message.get("bytes") or b"")


def _size(count: int) -> str:
    return f"{count // KB} KB" if count % KB == 0 else f"{count} bytes"


class SocketBounds:
    """ASGI middleware around the websocket routes: counts this process's open sockets (refusing the
    handshake past WEBSOCKETS_PER_PROCESS) and closes a socket with 1009 on a message over its path's
    limit, before the consumer sees it. Anything but a websocket passes through untouched."""

    # The process's count, whichever instance serves the socket.
    open_sockets = 0

    def __init__(self, application):
        self.application = application
        self._refused = 0
        self._refusals_logged_at = float("-inf")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.application(scope, receive, send)
        most = sockets_per_process()
        if SocketBounds.open_sockets >= most:
            return await self._refuse(scope, receive, send, most)
        SocketBounds.open_sockets += 1
        try:
            limit = limit_for(scope.get("path", "/"), scope.get("root_path", ""))
            return await self._bounded(scope, receive, send, limit)
        finally:
            SocketBounds.open_sockets -= 1

    async def _bounded(self, scope, receive, send, limit: MessageLimit):
        closed = False

        async def bounded_receive():
            nonlocal closed
            if closed:
                return {"type": "websocket.disconnect", "code": MESSAGE_TOO_BIG}
            message = await receive()
            if message["type"] == "websocket.receive" and message_bytes(message) > limit.max_bytes:
                closed = True
                reason = f"message too big: at most {_size(limit.max_bytes)} ({limit.setting})"
                await send({"type": "websocket.close", "code": MESSAGE_TOO_BIG, "reason": reason})
                log.info("closed a websocket on %s: a message over %s bytes", scope.get("path"), limit.max_bytes)
                # The consumer ends as for a client that left (it never reads the message).
                return {"type": "websocket.disconnect", "code": MESSAGE_TOO_BIG}
            return message

        async def guarded_send(message):
            if closed:  # once closed for its size, what the consumer still sends goes nowhere
                return
            # The server may have closed the socket (a frame over its limit, the client left) while the
            # consumer was still sending: it learns so from its next receive, without a traceback logged.
            with contextlib.suppress(CLIENT_GONE):
                await send(message)

        return await self.application(scope, bounded_receive, guarded_send)

    async def _refuse(self, scope, receive, send, most: int):
        """Refuse the handshake: this process holds as many sockets as it accepts."""
        if (await receive())["type"] != "websocket.connect":
            return  # the client left first
        self._note_refusal(most)
        if "websocket.http.response" not in (scope.get("extensions") or {}):
            await send({"type": "websocket.close"})  # daphne answers 403: the one refusal it can send
            return
        response = error_response(
            503,
            "TOO_MANY_SOCKETS",
            f"This server process holds as many websockets as it accepts ({most}, setting "
            "WEBSOCKETS_PER_PROCESS); try again later or use the REST chat.",
            retryAfter=RETRY_AFTER_SECONDS,
        )
        headers = [
            (b"content-type", response["Content-Type"].encode("latin-1")),
            (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
        ]
        await send({"type": "websocket.http.response.start", "status": 503, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": response.content})

    def _note_refusal(self, most: int):
        self._refused += 1
        now = time.monotonic()
        if now - self._refusals_logged_at >= REFUSALS_LOGGED_EVERY:
            log.warning(
                "refused %s websocket handshake(s): this process holds %s sockets (WEBSOCKETS_PER_PROCESS)",
                self._refused,
                most,
            )
            self._refused = 0
            self._refusals_logged_at = now


def bounded_sockets(application):
    """The websocket routes with their messages and this process's sockets bounded; inside daphne,
    daphne's own reading of frames too."""
    from .daphne_sockets import install_daphne_socket_guard

    install_daphne_socket_guard()
    return SocketBounds(application)
