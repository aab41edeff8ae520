"""daphne's own reading of websocket frames bounded (`make run`): a message over the server's limit is
refused from its frame header with close code 1009, and no socket queues more than a few messages.

daphne builds its websocket factory (autobahn on Twisted) with 1 MB frame and message limits and autobahn's
default of dropping the TCP connection on any failure, so a client sending a larger frame saw its socket
cut without a close code. daphne's command line sets neither. `install_daphne_socket_guard` replaces the
factory class daphne's server looks up when it starts (after it has imported the application, as
bots/servlet/limits.py does for HTTP requests), so that every daphne process:

- sets autobahn's maxFramePayloadSize and maxMessagePayloadSize to `server_message_max_bytes()` (the
  larger of the chatbox's and the console's limits; livechat/bounds.py applies each path's own);
- fails a connection with a close frame (failByDrop off): the client reads 1009 "message too big";
- stops reading a socket once its message is refused: autobahn would otherwise read and discard the rest
  of the payload until the client's close reply, and a hostile client never sends one. autobahn drops the
  connection when its close handshake times out, CLOSE_HANDSHAKE_SECONDS later (its default, 1 s, lost
  the close frame of 1 socket in 20 on a busy machine: a client whose unread bytes meet the reset loses them);
- stops reading a socket whose consumer has QUEUED_MESSAGES_MAX messages waiting, until it takes them:
  daphne would queue whatever a client sends, however fast, while uvicorn reads a socket's next message
  only once the consumer has taken the last one;
- lets the application close a socket with the protocol's own codes (1009 for a message over its path's
  limit): daphne closes through autobahn's sendClose, which takes only 1000 and 3000-4999 from an
  application, and raised on any other.
"""

import logging
import sys

log = logging.getLogger(__name__)

QUEUED_MESSAGES_MAX = 4
CLOSE_HANDSHAKE_SECONDS = 5
# How often a socket whose reading is paused looks whether its consumer has caught up.
RESUME_CHECK_SECONDS = 0.02
# Close codes an endpoint may send (RFC 6455 7.4.1 and IANA's registry) beyond autobahn's 1000 and 3000-4999.
PROTOCOL_CLOSE_CODES = frozenset({1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014})


def install_daphne_socket_guard() -> bool:
    """Make daphne build its websocket factory from `BoundedWebSocketFactory`, when daphne's server is
    loaded (never importing Twisted where it is not). daphne's server reads the factory class from its
    module when it starts, after it has imported the application."""
    if "daphne.server" not in sys.modules:
        return False
    from daphne import server

    if getattr(server.WebSocketFactory, "bounds_messages", False):
        return True
    server.WebSocketFactory = _bounded_factory(server.WebSocketFactory)
    return True


def _bounded_factory(factory_class):
    from daphne.ws_protocol import WebSocketProtocol
    from twisted.internet import reactor

    from .bounds import server_message_max_bytes

    class BoundedWebSocketProtocol(WebSocketProtocol):
        reading_paused = False

        def onMessageFrameBegin(self, length):
            super().onMessageFrameBegin(length)
            if self.wasMaxFramePayloadSizeExceeded or self.wasMaxMessagePayloadSizeExceeded:
                # autobahn has sent its close (1009); the payload is never read.
                self.transport.pauseProducing()
                self.reading_paused = True
                log.info("refused a websocket message over %s bytes from %s", self.maxMessagePayloadSize, self.peer)

        def onMessage(self, payload, isBinary):
            super().onMessage(payload, isBinary)
            queue = getattr(self, "application_queue", None)
            if queue is not None and queue.qsize() >= QUEUED_MESSAGES_MAX and not self.reading_paused:
                self.transport.pauseProducing()
                self.reading_paused = True
                reactor.callLater(RESUME_CHECK_SECONDS, self._resume_when_taken)

        def serverClose(self, code=None):
            if code in PROTOCOL_CLOSE_CODES:
                self.sendCloseFrame(code=code, isReply=False)
                return
            super().serverClose(code)

        def _resume_when_taken(self):
            if self.state != self.STATE_OPEN:
                return  # closing or closed: nothing more is read
            if self.application_queue.qsize() >= QUEUED_MESSAGES_MAX:
                reactor.callLater(RESUME_CHECK_SECONDS, self._resume_when_taken)
                return
            self.reading_paused = False
            self.transport.resumeProducing()

    class BoundedWebSocketFactory(factory_class):
        bounds_messages = True
        protocol = BoundedWebSocketProtocol

        def setProtocolOptions(self, **options):
            limit = server_message_max_bytes()
            options.update(
                maxFramePayloadSize=limit,
                maxMessagePayloadSize=limit,
                failByDrop=False,
                closeHandshakeTimeout=CLOSE_HANDSHAKE_SECONDS,
            )
            super().setProtocolOptions(**options)

    BoundedWebSocketProtocol.__name__ = BoundedWebSocketProtocol.__qualname__ = "BoundedWebSocketProtocol"
    BoundedWebSocketFactory.__name__ = BoundedWebSocketFactory.__qualname__ = "BoundedWebSocketFactory"
    return BoundedWebSocketFactory
