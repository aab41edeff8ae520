"""What tests/limits/test_sockets.py needs beyond tests/servers.py: the production layout's app server
(gunicorn with deploy/gunicorn.conf.py, so its deploy.worker.AppWorker and everything it sets), and a
hostile websocket client that sends one huge frame as an attacker would.

The hostile client opens its socket with the `websockets` package, then writes the frame itself: a header
declaring the whole payload, and the payload in 64 KB pieces, as fast as the server takes them. (A
client that builds the frame whole holds it twice in memory: 20 of them at 15 MB would weigh more than
the servers measured.) It reports the close code the server sent, and how many bytes the server's TCP
stack acknowledged: an upper bound of what the server read.
"""

import asyncio
import contextlib
import struct
from dataclasses import dataclass

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.limits.wire import bytes_acked
from tests.servers import GUNICORN, Server

PIECE = 64 * 1024


class ProdServer(Server):
    """gunicorn as `make prod` runs it (deploy/gunicorn.conf.py), with one uvicorn worker."""

    def __init__(self, env: dict, log, kind: str = "prod"):
        super().__init__(env, log, kind)
        self.env = {**env, "PROD_BIND": f"127.0.0.1:{self.port}", "PROD_WORKERS": "1"}
        self.env.pop("PROD_DIR", None)

    def command(self) -> list[str]:
        return [GUNICORN, "-c", "deploy/gunicorn.conf.py"]


def frame_head(size: int, opcode: int = 0x1) -> bytes:
    """A final, masked frame's header declaring `size` bytes, its length in the shortest form the protocol
    allows (the mask is zeros: the payload goes as is)."""
    if size < 126:
        length = bytes([0x80 | size])
    elif size < 1 << 16:
        length = bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        length = bytes([0x80 | 127]) + struct.pack("!Q", size)
    return bytes([0x80 | opcode]) + length + b"\0\0\0\0"


@dataclass
class Refusal:
    close_code: int | None
    reason: str
    sent: int  # payload bytes the client wrote before the server closed
    acked: int  # bytes the server's kernel acknowledged (handshake included)


async def send_huge_frame(url: str, size: int, headers: dict | None = None, origin: str | None = None) -> Refusal:
    """Send one text frame of `size` bytes; return how the server ended the socket."""
    async with connect(
        url,
        compression=None,
        ping_interval=None,
        open_timeout=30,
        close_timeout=5,
        additional_headers=headers,
        origin=origin,
    ) as socket:
        raw = socket.transport.get_extra_info("socket")
        sent = acked = 0
        block = b"x" * PIECE
        try:
            socket.transport.write(frame_head(size))
            while sent < size and not socket.transport.is_closing():
                piece = block[: min(PIECE, size - sent)]
                socket.transport.write(piece)
                sent += len(piece)
                acked = max(acked, bytes_acked(raw))
                await socket.drain()
        except (ConnectionError, OSError, ConnectionClosed):
            pass  # the server closed: how is below
        with contextlib.suppress(TimeoutError):  # no close at all: close_rcvd stays None
            await asyncio.wait_for(socket.wait_closed(), 30)
        close = socket.protocol.close_rcvd
        return Refusal(close.code if close else None, close.reason if close else "", sent, acked)


@dataclass
class Flood:
    answers: int  # answers read while flooding
    acked: int  # bytes the server's kernel acknowledged by then


async def flood(url: str, message: str, count: int, answers: int) -> Flood:
    """Write `count` copies of a message at once, without waiting for the server to take them, and read
    answers until `answers` have come: a server that reads messages faster than it handles them has
    taken most of them by then."""
    async with connect(url, compression=None, ping_interval=None, open_timeout=30, max_size=None) as socket:
        raw = socket.transport.get_extra_info("socket")
        for _ in range(count):
            socket.transport.write(frame_head(len(message.encode())) + message.encode())
        read = 0
        while read < answers:
            await asyncio.wait_for(socket.recv(), 60)
            read += 1
        return Flood(read, bytes_acked(raw))
