"""A fixed-rate (open-loop) talk client for bench/talk_speed.py: requests leave at a fixed arrival rate
whether or not earlier ones were answered, and each latency counts from the moment its request was due
(so a slow server cannot slow the clock down and hide its queue). asyncio over keep-alive HTTP/1.1
connections (TLS or not), opened as needed; the talk's form as the chatbox sends it, a fifth of the
talks starting a dialog, the others continuing a dialog that is not waiting for an answer (up to 5 turns).

    run(host, port, tls, path, rate=200, seconds=20, connections=100) -> Result (latencies, statuses, 200s per dialog)
"""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field

from bench.talk_load import KNOWN, UNKNOWN

# The questions bench/talk_load.py asks (answers, rewordings, questions the demo bot does not know).
QUESTIONS = KNOWN + UNKNOWN
TURNS = 5
NEW_DIALOG_EVERY = 5


@dataclass
class Result:
    rate: float
    seconds: float  # from the first request due to the last answer
    latencies: list[float] = field(default_factory=list)  # ms, from the moment each request was due
    statuses: Counter = field(default_factory=Counter)  # HTTP status, or the connection error's name
    dialogs: Counter = field(default_factory=Counter)  # context id (as answered, decoded) -> 200s
    client_cpu: float = 0.0  # seconds of this process's CPU during the run
    connections: int = 0  # connections opened

    @property
    def answered(self) -> int:
        return sum(self.statuses.values())


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    async def exchange(self, request: bytes) -> tuple[int, bytes, bool]:
        """(status, body, whether the connection stays open)."""
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                body += chunk[:-2]
        else:
            body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        return status, body, headers.get("connection", "").lower() != "close"

    def close(self):
        self.writer.close()


async def _run(
    host: str, port: int, tls: ssl.SSLContext | None, path: str, rate: float, seconds: float, connections: int
) -> Result:
    result = Result(rate, seconds)
    idle: list[Connection] = []
    # At most this many requests out at once (each on its own connection, as browsers would): beyond it a
    # due request waits for a connection, and its latency counts the wait.
    slots = asyncio.Semaphore(connections)
    waiting: list[tuple[str, int]] = []  # dialogs not waiting for an answer: (context, turns so far)
    loop = asyncio.get_running_loop()

    def form(index: int) -> tuple[str, bytes]:
        language, text = QUESTIONS[index % len(QUESTIONS)]
        target, dialog = path, None
        if index % NEW_DIALOG_EVERY and waiting:
            dialog = waiting.pop(0)
            target = f"{path}/{dialog[0]}"
        fields = {"userInput": text, "language": language, "space": "Defaut", "solutionUsed": "ASSISTANT"}
        body = urllib.parse.urlencode({**fields, "qualificationMode": "false", "clientId": "openloop"}).encode()
        request = (
            f"POST {target} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        return request, dialog

    async def one(index: int, due: float):
        async with slots:
            await exchange(index, due)

    async def exchange(index: int, due: float):
        request, dialog = form(index)
        connection = idle.pop() if idle else None
        try:
            if connection is None:
                reader, writer = await asyncio.open_connection(host, port, ssl=tls)
                connection = Connection(reader, writer)
                result.connections += 1
            status, body, keep = await asyncio.wait_for(connection.exchange(request), 60)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as error:
            result.latencies.append((loop.time() - due) * 1000)
            result.statuses[type(error).__name__] += 1
            if connection is not None:
                connection.close()
            return
        result.latencies.append((loop.time() - due) * 1000)
        result.statuses[status] += 1
        if keep:
            idle.append(connection)
        else:
            connection.close()
        if status == 200:
            context = json.loads(body).get("values", {}).get("contextId")
            if context:
                context = base64.b64decode(context).decode()
                result.dialogs[context] += 1
                turns = dialog[1] + 1 if dialog and dialog[0] == context else 1
                if turns < TURNS:
                    waiting.append((context, turns))

    cpu = time.process_time()
    start = loop.time() + 0.05
    tasks = []
    for index in range(int(rate * seconds)):
        due = start + index / rate
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(index, due)))
    await asyncio.gather(*tasks)
    result.seconds = loop.time() - start
    result.client_cpu = time.process_time() - cpu
    for connection in idle:
        connection.close()
    return result


def run(
    host: str, port: int, tls: ssl.SSLContext | None, path: str, rate: float, seconds: float, connections: int = 100
) -> Result:
    return asyncio.run(_run(host, port, tls, path, rate, seconds, connections))
