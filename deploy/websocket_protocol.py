"""The production workers' websocket protocol: uvicorn's (websockets' sans-I/O parser), with a refused
message's close code reaching the client.

uvicorn fails a connection (a message over `ws_max_size`, a protocol error) by writing the close frame and
closing the socket at once. A client still sending a large frame has left bytes unread there, so the
kernel answers the close with a reset, and the client often lost the close frame with it: of 20 clients
sending 15 MB frames, 10 to 20 saw their socket cut without a code, as under daphne before. Here the socket
stops being read once the close frame is written, and is closed LINGER_SECONDS later (as long as daphne
waits for the client's close reply, livechat/daphne_sockets.py; a client on a busy machine did not always
read its close within 1 s): the client reads 1009 first, and nothing more of its frame is read meanwhile.
"""

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

LINGER_SECONDS = 5.0


class AppWebSocketProtocol(WebSocketsSansIOProtocol):
    failed = False

    def handle_parser_exception(self) -> None:
        self.failed = True
        close = self.conn.close_sent
        self.queue.put_nowait({"type": "websocket.disconnect", "code": close.code, "reason": close.reason})
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.transport.pause_reading()
        # uvicorn's receive() resumes a paused socket once the application has taken its messages: this
        # one stays paused until it closes.
        self.read_paused = False
        self.close_timer = self.loop.call_later(LINGER_SECONDS, self.transport.close)

    async def send(self, message) -> None:
        # Until the socket closes, the application may still send (its pushes, an answer on its way): it
        # is told the client is gone, as uvicorn tells it once the socket has closed, rather than that it
        # broke the protocol.
        if self.failed:
            raise ClientDisconnected()
        await super().send(message)
