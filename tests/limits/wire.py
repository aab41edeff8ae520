"""A raw HTTP/1.1 client that sends a large body as a hostile client would, and measures what the server took.

It sends the request head, then the body (declared with Content-Length, or chunked) as fast as the server
lets it, while watching for an answer: as soon as a complete answer arrives it stops sending. It reports
the answer and how many body bytes the server's TCP stack acknowledged (the client socket's TCP_INFO
`tcpi_bytes_acked`), an upper bound of what the server process read from the socket: the acknowledged
bytes are read by the server or still waiting, unread, in its receive buffer.
"""

import json
import select
import socket
import struct
import time
from dataclasses import dataclass, field

PIECE = 64 * 1024
BOUNDARY = "limits-test-boundary"
# struct tcp_info (linux/tcp.h): 8 one-byte fields, 24 u32 counters, then u64 pacing_rate,
# max_pacing_rate, bytes_acked.
TCP_INFO_BYTES_ACKED = 8 + 24 * 4 + 2 * 8


@dataclass
class Answer:
    status: int | None
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    offered: int = 0  # bytes of the body the client's kernel accepted
    acked: int = 0  # bytes of the request (head and body) the server's kernel acknowledged
    seconds: float = 0.0
    interim: list = field(default_factory=list)  # 1xx status lines seen before the answer

    def json(self) -> dict:
        return json.loads(self.body)


def bytes_acked(sock: socket.socket) -> int:
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return struct.unpack_from("Q", info, TCP_INFO_BYTES_ACKED)[0]


def multipart_parts(size: int, field_name: str = "file", filename: str = "big.xml") -> tuple[bytes, bytes]:
    """The envelope of a multipart body of one file field: (before the file's bytes, after them)."""
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field_name}"; filename="{filename}"\r\n'
        "Content-Type: application/xml\r\n\r\n"
    ).encode()
    return head, f"\r\n--{BOUNDARY}--\r\n".encode()


def _body_pieces(size: int, multipart: bool, body: bytes | None):
    if body is not None:
        for start in range(0, len(body), PIECE):
            yield body[start : start + PIECE]
        return
    head, tail = multipart_parts(size) if multipart else (b"", b"")
    filler = size - len(head) - len(tail)
    if head:
        yield head
    block = b"x" * PIECE
    while filler > 0:
        yield block[: min(PIECE, filler)]
        filler -= PIECE
    if tail:
        yield tail


def _parse(buffer: bytes):
    """(status, headers, body, interim lines) once a whole final answer is in buffer, else None."""
    interim = []
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        lines = buffer[:end].decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        if 100 <= status < 200:
            interim.append(lines[0])
            buffer = buffer[end + 4 :]
            continue
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = buffer[end + 4 :]
        length = int(headers.get("content-length", -1))
        if length < 0 or len(body) < length:
            return None
        return status, headers, body[:length], interim


def send(
    port: int,
    path: str,
    size: int,
    *,
    chunked: bool = False,
    multipart: bool = True,
    headers: dict | None = None,
    send_body: bool = True,
    body: bytes | None = None,
    content_type: str | None = None,
    timeout: float = 60,
) -> Answer:
    """POST a body of `size` bytes to 127.0.0.1:port and return the answer (status None: none came).
    `body`: these bytes instead of a generated file (size is then their length)."""
    if body is not None:
        size = len(body)
    head = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Origin: https://shop.example"]
    if content_type is None:
        content_type = f"multipart/form-data; boundary={BOUNDARY}" if multipart else "application/octet-stream"
    head.append(f"Content-Type: {content_type}")
    head.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}")
    head += [f"{name}: {value}" for name, value in (headers or {}).items()]
    pending = bytearray("\r\n".join(head).encode() + b"\r\n\r\n")
    head_left = len(pending)  # offered counts the body's bytes only
    pieces = _body_pieces(size, multipart, body) if send_body else iter(())
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setblocking(False)
    started = time.monotonic()
    answer = Answer(status=None)
    received = b""
    sending, finished_body = True, False
    try:
        while time.monotonic() - started < timeout:
            if sending and not pending:
                piece = next(pieces, None)
                if piece is not None:
                    pending += (b"%x\r\n" % len(piece) + piece + b"\r\n") if chunked else piece
                elif not finished_body:
                    finished_body = True
                    if chunked and send_body:
                        pending += b"0\r\n\r\n"
            wanted_write = [sock] if sending and pending else []
            readable, writable, _ = select.select([sock], wanted_write, [], 1)
            if readable:
                try:
                    data = sock.recv(65536)
                except OSError:
                    break  # reset: whatever answer arrived is in `received`
                if not data:
                    break
                received += data
                if _parse(received):
                    break
            if writable:
                try:
                    count = sock.send(pending)
                except OSError:
                    sending = False  # the server closed: read what it answered
                    continue
                answer.offered += max(0, count - head_left)
                head_left = max(0, head_left - count)
                del pending[:count]
        answer.acked = bytes_acked(sock)
    finally:
        sock.close()
    answer.seconds = time.monotonic() - started
    parsed = _parse(received)
    if parsed:
        answer.status, answer.headers, answer.body, answer.interim = parsed
    return answer
