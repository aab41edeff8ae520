"""Live-chat benchmark: idle chatbox websockets held by one server process through Redis, and the
operator-to-visitor message latency across two processes; each beside a bare Channels consumer
(bench/echo_asgi.py) served by daphne the same way, in the same run.

Part 1, idle sockets. One daphne process serves config.asgi:application (REDIS_URL set, a scratch
database, MATCHING_EMBEDDINGS=off). First the talk is sent N times over REST (chat/talk, keep-alive
connections) to measure its server CPU; then N chatbox websockets (/servlet/chatWs) open, each sends
one talk frame (a new dialog) and gets its answer, which makes it join its dialog's group in Redis;
they stay idle. The server's RSS (/proc/PID/status VmRSS) and CPU (utime+stime of /proc/PID/stat)
are read before and at each step, then over an idle period; a probe socket's ping round trips show
event-loop stalls; pushes from another process to a sample of the dialogs' groups (through
livechat.delivery's frames, at 25/s, 100/s and all at once) check that the sockets are alive and
joined; and the same talk sent again on open sockets gives its cost without the opening. Then the
same for the baseline: N sockets that open, send one message, join a group and get the echo.

Part 2, latency. Two daphne processes on one PostgreSQL database and one Redis: 20 operators
(created through POST /servlet/api/bousers, maxDialogs=10 through the availability servlet, logged
in through the back office's login form) hold their consoles on process B; 200 visitors ask for a
human on process A ("Je veux parler à un conseiller") and are assigned, 10 to each operator. Each
operator then sends one message every 1 to 2 s (uniform, seeded), round robin over their dialogs,
for 60 s; the latency runs from just before the console's send to the visitor socket's receipt
(one client process, one monotonic clock; each message carries its id). The baseline: the same
sockets and schedule on two echo processes, a message sent on B group_sent to a group whose only
member socket is on A.

Usage (from the repository root; about 17 minutes with the defaults on 2 cores):
    .venv/bin/python bench/livechat.py [--postgres-url postgres://postgres@127.0.0.1:5432/livechatbench]
        [--database-url URL] [--redis-url redis://127.0.0.1:6379/9] [--sockets 20000]
        [--steps 5000,10000] [--dialogs 200] [--operators 20] [--seconds 60] [--parts idle latency]

--postgres-url names a PostgreSQL server: the benchmark creates scratch databases there (named after
the URL's database with a random suffix) and drops them at the end. --database-url instead names one
scratch database (dropped and created again for each part, and dropped at the end; sqlite:///PATH
works for part 1). The Redis database of --redis-url must hold nothing but this benchmark's keys
("asgi…", the cache's ":1:…", the chat meters' "metrics:…"): they are deleted after each phase.
Method and figures: bench/LIVECHAT.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import http.client
import http.cookiejar
import json
import multiprocessing
import os
import platform as platform_module
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as `python bench/livechat.py` from anywhere
    sys.path.insert(0, str(REPO))

from bench._common import percentile  # noqa: E402
from tests import servers as harness  # noqa: E402  (the test servers' harness: processes, ports, database)
from tests.servers import BOT_UUID, DAPHNE, PYTHON  # noqa: E402

QUESTION = "Quels sont vos horaires d'ouverture ?"
ADVISOR = "Je veux parler à un conseiller"
ADMIN_PASSWORD = "bench-admin-" + uuid.uuid4().hex[:12]
CLK_TCK = os.sysconf("SC_CLK_TCK")
TARGETS = {"sockets": 20000, "rss_mb": 1024.0, "open_cpu_ms": 3.0, "p50_ms": 20.0, "p99_ms": 100.0}


# ----------------------------------------------------------------------------------------- utilities


def raise_nofile():
    """As many file descriptors as this process may have (the hard limit; above it needs root's
    CAP_SYS_RESOURCE, which containers often lack)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for wanted in (1_048_576, 262_144, 65_536):
        if hard >= wanted:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return
        except (ValueError, OSError):
            continue
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def nofile_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """utime + stime of the whole process (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def unb64(value: str) -> str:
    try:
        return base64.b64decode(value, validate=True).decode()
    except ValueError:
        return value


def log(message: str):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# ------------------------------------------------------------------------------------------ the frames


def talk_frame(text: str) -> dict:
    """The CV5 chatbox's talk frame for a new dialog (tests/livechat/conftest.py talk_frame)."""
    parameters = {
        "contextId": b64(""),
        "botId": b64(BOT_UUID),
        "space": b64("Defaut"),
        "clientId": b64("a1b2c3d4e5f6a7b"),
        "language": b64("fr"),
        "solutionUsed": b64("ASSISTANT"),
        "userUrl": b64("http://shop.example/"),
        "browser": b64("Google Chrome or Chromium"),
        "os": b64("Linux"),
        "saml2_info": None,
        "userInput": b64(text),
        "alreadyCame": False,
        "contextType": b64("Web"),
        "qualificationMode": False,
        "doNotRegisterInteraction": False,
        "useServerCookieForContext": False,
        "disableLanguageDetection": True,
        "timestamp": 1790000000000,
        "extraParameters": {},
    }
    return {"type": "talk", "parameters": parameters}


def talk_form(text: str) -> bytes:
    """The same talk as REST form fields (plain values, as chat/talk takes them)."""
    fields = {
        "space": "Defaut",
        "clientId": "a1b2c3d4e5f6a7b",
        "language": "fr",
        "solutionUsed": "ASSISTANT",
        "userUrl": "http://shop.example/",
        "browser": "Google Chrome or Chromium",
        "os": "Linux",
        "userInput": text,
        "alreadyCame": "false",
        "contextType": "Web",
        "qualificationMode": "false",
        "doNotRegisterInteraction": "false",
        "useServerCookieForContext": "false",
        "disableLanguageDetection": "true",
        "timestamp": "1790000000000",
        "extraParameters": "{}",
    }
    return urllib.parse.urlencode(fields).encode()


def dialog_group(context_id: str) -> str:
    """livechat.delivery.dialog_group: the group a chatbox socket joins for its dialog."""
    return f"dialog.{context_id.replace('-', '')}"


# ------------------------------------------------------------------------------ databases and servers


class Database:
    """One scratch database for one part: a fresh PostgreSQL database on --postgres-url's server, or
    the --database-url database recreated (PostgreSQL dropped and created, SQLite file removed)."""

    def __init__(self, args, part: str, folder: Path):
        self.admin_url = None
        self.name = None
        self.sqlite_path = None
        if args.database_url:
            self.url = args.database_url
            if self.url.startswith("sqlite:"):
                self.sqlite_path = Path(urllib.parse.urlsplit(self.url).path)
                self._remove_sqlite()
                return
            parts = urllib.parse.urlsplit(self.url)
            self.name = parts.path.lstrip("/")
        else:
            parts = urllib.parse.urlsplit(args.postgres_url)
            base = parts.path.lstrip("/") or "livechatbench"
            self.name = f"{base}_{part}_{uuid.uuid4().hex[:6]}"
        if self.name in ("", "postgres", "template0", "template1", "test"):
            raise SystemExit(f"refusing to recreate the database {self.name!r}: name a scratch database")
        self.admin_url = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
        self.url = urllib.parse.urlunsplit(parts._replace(path=f"/{self.name}"))
        self._execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self._execute(f'CREATE DATABASE "{self.name}"')

    def _execute(self, sql: str):
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            connection.execute(sql)

    @property
    def vendor(self) -> str:
        return "SQLite" if self.url.startswith("sqlite:") else "PostgreSQL"

    def version(self) -> str:
        if self.admin_url is None:
            import sqlite3

            return f"SQLite {sqlite3.sqlite_version}"
        import psycopg

        with psycopg.connect(self.admin_url) as connection:
            return "PostgreSQL " + connection.execute("SHOW server_version").fetchone()[0]

    def _remove_sqlite(self):
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(self.sqlite_path) + suffix).unlink(missing_ok=True)

    def drop(self):
        if self.admin_url is not None:
            self._execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        elif self.sqlite_path is not None:
            self._remove_sqlite()


class Server(harness.Server):
    """One daphne process, run as `make run` runs it (defaults: access log on stdout, pings every 20 s),
    with the file-descriptor limit raised: the test servers' harness (tests/servers.py), plus py-spy."""

    def __init__(self, application: str, env: dict, log_path: Path):
        super().__init__(env, log_path, application=application, preexec_fn=raise_nofile, stop_timeout=20)

    def start(self):
        self.code = code_state()
        return super().start()

    def profile(self, folder: Path | None, name: str):
        """py-spy (if --profile DIR and py-spy is installed) samples this server until the returned
        callable is called: collapsed stacks per thread, idle frames included (wall time), in DIR/NAME.txt."""
        spy = shutil.which("py-spy") or str(Path(PYTHON).with_name("py-spy"))
        if folder is None or not Path(spy).exists():
            return lambda: None
        folder.mkdir(parents=True, exist_ok=True)
        recorder = subprocess.Popen(
            [
                spy,
                "record",
                "--pid",
                str(self.pid),
                "--format",
                "raw",
                "--rate",
                "200",
                "--nonblocking",
                "--idle",
                "--threads",
                "--output",
                str(folder / f"{name}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1)
        started = time.monotonic()

        def stop():
            (folder / f"{name}.seconds").write_text(f"{time.monotonic() - started:.1f}\n")
            recorder.send_signal(signal.SIGINT)
            try:
                recorder.wait(timeout=60)
            except subprocess.TimeoutExpired:
                recorder.kill()
                recorder.wait()

        return stop

    def tracebacks(self) -> int:
        return self.log_path.read_text(errors="replace").count("Traceback")


def platform_env(database_url: str, redis_url: str, folder: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "DATA_DIR": str(folder),
            "DEMO_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "MATCHING_EMBEDDINGS": "off",
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PYTHONUNBUFFERED": "1",
            # What a process can hold is measured here, past the platform's own bound (livechat/bounds.py:
            # by default 1,000 fewer sockets than the process may open files).
            "WEBSOCKETS_PER_PROCESS": "20000",
        }
    )
    return env


def echo_env(redis_url: str, folder: Path) -> dict:
    """The baseline's environment: the same Redis (its layer settings are read from config/settings.py)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update({"REDIS_URL": redis_url, "DATA_DIR": str(folder), "PYTHONUNBUFFERED": "1"})
    return env


class RedisKeys:
    """The benchmark's Redis database: checked to hold only our kind of keys, emptied after each phase."""

    PATTERNS = ("asgi*", ":1:*", "metrics:*")

    def __init__(self, url: str):
        import redis

        self.client = redis.Redis.from_url(url)
        self.url = url

    def check(self):
        foreign = [
            key
            for key in self.client.scan_iter(count=1000)
            if not key.startswith(tuple(pattern.rstrip("*").encode() for pattern in self.PATTERNS))
        ]
        if foreign:
            raise SystemExit(
                f"{self.url} holds keys this benchmark did not make (e.g. {foreign[0]!r}): give it an unused "
                "database number with --redis-url"
            )

    def clean(self) -> int:
        removed = 0
        for pattern in self.PATTERNS:
            batch = []
            for key in self.client.scan_iter(match=pattern, count=1000):
                batch.append(key)
                if len(batch) >= 1000:
                    removed += self.client.unlink(*batch)
                    batch = []
            if batch:
                removed += self.client.unlink(*batch)
        return removed

    def count(self) -> int:
        return self.client.dbsize()

    def version(self) -> str:
        return "Redis " + self.client.info("server")["redis_version"]


# ----------------------------------------------------------------------------------- HTTP as a person


# ------------------------------------------------------------------------- client processes (part 1)


class Worker:
    """One client process: holds its share of the idle sockets, on its own loopback address (so that
    each process has the whole ephemeral port range), and takes commands from the benchmark."""

    def __init__(self, index: int):
        self.index = index
        self.ip = f"127.0.0.{2 + index}"
        self.sockets: list = []  # (websocket, group)

    async def serve(self, conn):
        loop = asyncio.get_running_loop()
        while True:
            command, options = await loop.run_in_executor(None, conn.recv)
            if command == "quit":
                conn.send({})
                return
            try:
                result = await getattr(self, command)(**options)
            except Exception as error:  # reported to the benchmark, which stops
                result = {"error": f"{type(error).__name__}: {error}"}
            conn.send(result)

    async def connect(self, url: str):
        from websockets.asyncio.client import connect

        return await connect(
            url,
            ping_interval=None,  # idle means idle: the server's own pings (daphne: every 20 s) still run
            compression=None,  # daphne declines permessage-deflate anyway
            proxy=None,
            open_timeout=120,
            close_timeout=5,
            max_queue=None,
            local_addr=(self.ip, 0),
        )

    async def open(self, url: str, kind: str, count: int, concurrency: int):
        """Open `count` sockets; each sends its first message (a talk frame or a join) and waits for its
        answer. Returns the per-socket times (connect to answer) and the failures."""
        gate = asyncio.Semaphore(concurrency)
        times, errors = [], Counter()

        async def one():
            async with gate:
                started = time.monotonic()
                try:
                    ws = await self.connect(url)
                except Exception as error:
                    errors[f"connect: {type(error).__name__}: {str(error)[:80]}"] += 1
                    return
                try:
                    if kind == "platform":
                        await ws.send(json.dumps(talk_frame(QUESTION)))
                        while True:
                            frame = json.loads(await asyncio.wait_for(ws.recv(), 120))
                            if frame.get("type") == "talkResponse":
                                break
                        group = dialog_group(unb64(frame["values"]["contextId"]))
                    else:
                        group = f"bench.{uuid.uuid4().hex}"
                        await ws.send(json.dumps({"join": group, "text": QUESTION}))
                        json.loads(await asyncio.wait_for(ws.recv(), 120))
                except Exception as error:
                    errors[f"first message: {type(error).__name__}: {str(error)[:80]}"] += 1
                    await ws.close()
                    return
                times.append(time.monotonic() - started)
                self.sockets.append((ws, group))

        started = time.monotonic()
        await asyncio.gather(*(one() for _ in range(count)))
        return {"times": times, "errors": dict(errors), "seconds": time.monotonic() - started}

    async def again(self, kind: str, count: int, concurrency: int):
        """A second first-message on `count` open sockets (a new dialog, or a new group): what the same
        talk costs on a socket that is open already."""
        gate = asyncio.Semaphore(concurrency)
        times, errors = [], Counter()

        async def one(i):
            ws, _ = self.sockets[i]
            async with gate:
                started = time.monotonic()
                try:
                    if kind == "platform":
                        await ws.send(json.dumps(talk_frame(QUESTION)))
                        while True:
                            frame = json.loads(await asyncio.wait_for(ws.recv(), 120))
                            if frame.get("type") == "talkResponse":
                                break
                        group = dialog_group(unb64(frame["values"]["contextId"]))
                    else:
                        group = f"bench.{uuid.uuid4().hex}"
                        await ws.send(json.dumps({"join": group, "text": QUESTION}))
                        json.loads(await asyncio.wait_for(ws.recv(), 120))
                except Exception as error:
                    errors[f"{type(error).__name__}: {str(error)[:80]}"] += 1
                    return
                self.sockets[i] = (ws, group)
                times.append(time.monotonic() - started)

        await asyncio.gather(*(one(i) for i in range(min(count, len(self.sockets)))))
        return {"times": times, "errors": dict(errors)}

    async def sample(self, count: int, seed: int):
        rng = random.Random(seed + self.index)
        picked = rng.sample(range(len(self.sockets)), min(count, len(self.sockets)))
        return {"picked": [(i, self.sockets[i][1]) for i in picked]}

    async def expect(self, picked: list[int], needle: str, timeout: float):
        """Each picked socket must receive a message containing `needle` (pushed after `sample`)."""

        async def one(i):
            ws = self.sockets[i][0]
            deadline = time.monotonic() + timeout
            try:
                while True:
                    text = await asyncio.wait_for(ws.recv(), max(0.01, deadline - time.monotonic()))
                    if needle in text:
                        return True
            except Exception:
                return False

        got = await asyncio.gather(*(one(i) for i in picked))
        return {"received": sum(got), "expected": len(picked)}

    async def alive(self):
        from websockets.protocol import State

        states = Counter(ws.state.name for ws, _ in self.sockets)
        return {"open": states.get(State.OPEN.name, 0), "states": dict(states)}

    async def close(self, concurrency: int = 200):
        gate = asyncio.Semaphore(concurrency)

        async def one(ws):
            async with gate:
                try:
                    await asyncio.wait_for(ws.close(), 10)
                except Exception:
                    ws.transport.abort()

        await asyncio.gather(*(one(ws) for ws, _ in self.sockets))
        closed = len(self.sockets)
        self.sockets = []
        return {"closed": closed}

    async def rest(self, port: int, count: int, threads: int, path: str, body: bytes):
        """`count` REST talks over `threads` keep-alive connections."""
        loop = asyncio.get_running_loop()
        share = [count // threads + (1 if t < count % threads else 0) for t in range(threads)]
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Connection": "keep-alive"}

        def run(n):
            done, failed, connections = 0, Counter(), 0
            conn = None
            for _ in range(n):
                for attempt in range(2):
                    if conn is None:
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(self.ip, 0))
                        connections += 1
                    try:
                        conn.request("POST", path, body=body, headers=headers)
                        response = conn.getresponse()
                        payload = response.read()
                        if response.status == 200 and b'"talkResponse"' in payload:
                            done += 1
                        else:
                            failed[f"HTTP {response.status}"] += 1
                        if response.getheader("Connection", "").lower() == "close":
                            conn.close()
                            conn = None
                        break
                    except (http.client.HTTPException, OSError) as error:
                        conn.close()
                        conn = None
                        if attempt:
                            failed[type(error).__name__] += 1
            if conn is not None:
                conn.close()
            return done, failed, connections

        results = await asyncio.gather(*(loop.run_in_executor(None, run, n) for n in share))
        failed = Counter()
        for _, f, _ in results:
            failed.update(f)
        return {
            "done": sum(r[0] for r in results),
            "errors": dict(failed),
            "connections": sum(r[2] for r in results),
        }


def worker_main(conn, index: int):
    raise_nofile()
    worker = Worker(index)
    asyncio.run(worker.serve(conn))


class Clients:
    """The client processes, spawned fresh (no state inherited from the benchmark)."""

    def __init__(self, count: int):
        context = multiprocessing.get_context("spawn")
        self.pipes, self.processes = [], []
        for index in range(count):
            parent, child = context.Pipe()
            process = context.Process(target=worker_main, args=(child, index), daemon=True)
            process.start()
            self.pipes.append(parent)
            self.processes.append(process)

    def __len__(self):
        return len(self.pipes)

    def call(self, command: str, per_worker: list[dict]) -> list[dict]:
        for pipe, options in zip(self.pipes, per_worker, strict=True):
            pipe.send((command, options))
        results = [pipe.recv() for pipe in self.pipes]
        for result in results:
            if "error" in result:
                raise RuntimeError(f"client {command}: {result['error']}")
        return results

    def all(self, command: str, **options) -> list[dict]:
        return self.call(command, [options] * len(self))

    def split(self, total: int) -> list[int]:
        n = len(self)
        return [total // n + (1 if i < total % n else 0) for i in range(n)]

    def stop(self):
        """Quit each client (one busy with a command is terminated: its sockets close with it)."""
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            if process.is_alive():
                try:
                    pipe.send(("quit", {}))
                    if pipe.poll(10):
                        pipe.recv()
                except (EOFError, OSError):
                    pass
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)


# ------------------------------------------------------------------------- pushing from another process


def push_phase(kind: str):
    """Inside a fresh process: group_send one message to each group read on stdin (JSON), through the
    channel layer configured like the server's. The platform's goes through livechat.delivery.send,
    the server's own push (a frame_text notification); the baseline's is a bench.push."""
    job = json.loads(sys.stdin.read())
    sys.path.insert(0, str(REPO))
    if kind == "platform":
        import django

        django.setup()
        from asgiref.sync import async_to_sync
        from channels.layers import get_channel_layer

        from livechat.delivery import frame_text

        text = frame_text("notification", {"code": "BenchPush", "text": job["tag"]})
        message = {"type": "livechat.push", "text": text}
    else:
        from asgiref.sync import async_to_sync
        from channels.layers import get_channel_layer

        import bench.echo_asgi  # noqa: F401  (configures the settings and the layer)

        message = {"type": "bench.push", "text": json.dumps({"push": job["tag"]})}

    async def send_all():
        layer = get_channel_layer()
        gap = 1 / job["rate"] if job["rate"] else 0
        started = time.monotonic()
        for n, group in enumerate(job["groups"]):
            if gap and (delay := started + n * gap - time.monotonic()) > 0:
                await asyncio.sleep(delay)
            await layer.group_send(group, message)

    started = time.monotonic()
    async_to_sync(send_all)()
    print(json.dumps({"sent": len(job["groups"]), "seconds": time.monotonic() - started}))


def push(kind: str, env: dict, groups: list[str], tag: str, rate: float) -> dict:
    """Push to each group from a fresh process, `rate` per second (0: as fast as the layer takes them)."""
    done = subprocess.run(
        [PYTHON, __file__, "--push", kind],
        cwd=REPO,
        env=env,
        input=json.dumps({"groups": groups, "tag": tag, "rate": rate}),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"push failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------------- part 1: idle sockets


def measure_idle(kind: str, server: Server, clients: Clients, args, push_env: dict, steps: list[int]) -> dict:
    """Open the sockets step by step, reading the server's RSS and CPU; then idle, verify, close."""
    pid = server.pid
    url = server.ws_url("/servlet/chatWs" if kind == "platform" else "/")
    result = {"kind": kind, "steps": []}
    per_worker_concurrency = max(1, args.open_concurrency // len(clients))

    # Warm up: the first talks build the bot's index, open the pools; then those sockets close.
    warm = clients.call("open", [{"url": url, "kind": kind, "count": 5, "concurrency": 5} for _ in range(len(clients))])
    if any(w["errors"] for w in warm):
        raise RuntimeError(f"{kind}: warm-up sockets failed: {[w['errors'] for w in warm]}")
    clients.all("close")

    if kind == "platform":
        # The talk the sockets send, N times over REST to the same server (keep-alive connections).
        rest_count = args.rest_talks if args.rest_talks is not None else steps[-1]
        path, body = f"/servlet/api/chat/talk/{BOT_UUID}", talk_form(QUESTION)
        clients.call(
            "rest",
            [
                {"port": server.port, "count": n, "threads": 1, "path": path, "body": body}
                for n in clients.split(min(rest_count, 50))
            ],
        )
        time.sleep(2)
        cpu0, started = cpu_seconds(pid), time.monotonic()
        done = clients.call(
            "rest",
            [
                {"port": server.port, "count": n, "threads": args.rest_threads, "path": path, "body": body}
                for n in clients.split(rest_count)
            ],
        )
        seconds = time.monotonic() - started
        cpu = cpu_seconds(pid) - cpu0
        talks = sum(d["done"] for d in done)
        errors = Counter()
        for d in done:
            errors.update(d["errors"])
        result["rest"] = {
            "talks": talks,
            "errors": dict(errors),
            "connections": sum(d["connections"] for d in done),
            "cpu_s": cpu,
            "cpu_ms_per_talk": cpu * 1000 / max(1, talks),
            "seconds": seconds,
            "rate": talks / seconds,
        }
        log(
            f"  REST talk x{talks}: {result['rest']['cpu_ms_per_talk']:.2f} ms server CPU per talk "
            f"({talks / seconds:.0f}/s, {result['rest']['connections']} connections, errors {dict(errors) or 0})"
        )

    time.sleep(3)
    rss0, cpu0, fds0 = rss_mb(pid), cpu_seconds(pid), open_fds(pid)
    result.update({"rss0_mb": rss0, "fds0": fds0})
    log(f"  {kind} server before: RSS {rss0:.1f} MB, {fds0} open fds")
    opened, all_times, errors = 0, [], Counter()
    stop_profile = server.profile(args.profile, f"idle-{kind}-opening")
    cpu0 = cpu_seconds(pid)
    last_cpu, last_opened, socket_seconds = cpu0, 0, 0.0
    opening_seconds = 0.0
    for target in steps:
        started = time.monotonic()
        got = clients.call(
            "open",
            [
                {"url": url, "kind": kind, "count": n, "concurrency": per_worker_concurrency}
                for n in clients.split(target - opened)
            ],
        )
        seconds = time.monotonic() - started
        for g in got:
            all_times.extend(g["times"])
            errors.update(g["errors"])
        now_open = opened + sum(len(g["times"]) for g in got)
        socket_seconds += (opened + now_open) / 2 * seconds
        opening_seconds += seconds
        opened = now_open
        time.sleep(2)  # let the server settle (answers sent, buffers freed)
        rss, cpu = rss_mb(pid), cpu_seconds(pid)
        step = {
            "sockets": opened,
            "rss_mb": rss,
            "rss_kb_per_socket": (rss - rss0) * 1024 / max(1, opened),
            "cpu_s": cpu - cpu0,
            "cpu_ms_per_socket": (cpu - cpu0) * 1000 / max(1, opened),
            "step_cpu_ms_per_socket": (cpu - last_cpu) * 1000 / max(1, opened - last_opened),
            "seconds": seconds,
            "rate": (opened - last_opened) / seconds,
            "fds": open_fds(pid),
        }
        result["steps"].append(step)
        log(
            f"  {kind}: {opened} sockets, RSS {rss:.1f} MB (+{step['rss_kb_per_socket']:.1f} KB/socket), "
            f"CPU {step['cpu_ms_per_socket']:.2f} ms/socket (this step {step['step_cpu_ms_per_socket']:.2f}), "
            f"{step['rate']:.0f} opens/s, errors {dict(errors) or 0}"
        )
        last_cpu, last_opened = cpu, opened
    stop_profile()
    result["open_errors"] = dict(errors)
    result["open_ms"] = {
        "p50": percentile(all_times, 50) * 1000,
        "p99": percentile(all_times, 99) * 1000,
        "max": max(all_times, default=0) * 1000,
    }

    # Idle: what holding the sockets costs per second (daphne's checks and pings, the layer's reads).
    cpu_a = cpu_seconds(pid)
    time.sleep(args.idle_seconds)
    idle_cpu = cpu_seconds(pid) - cpu_a
    result["idle"] = {
        "seconds": args.idle_seconds,
        "cpu_s": idle_cpu,
        "core_percent": idle_cpu / args.idle_seconds * 100,
        "rss_mb": rss_mb(pid),
    }
    # The opening steps also paid that idle cost for the sockets already open: taken out here.
    rate_per_socket_second = idle_cpu / args.idle_seconds / max(1, opened)
    gross = result["steps"][-1]["cpu_ms_per_socket"]
    result["cpu_ms_per_socket_net_of_idle"] = gross - rate_per_socket_second * socket_seconds * 1000 / max(1, opened)
    result["opening_seconds"] = opening_seconds
    log(
        f"  {kind}: idle {args.idle_seconds:.0f} s with {opened} sockets: {idle_cpu:.2f} s CPU "
        f"({result['idle']['core_percent']:.1f}% of a core), RSS {result['idle']['rss_mb']:.1f} MB"
    )

    # Event-loop stalls: a probe socket's round trips ("ping" -> "pong" on the chatbox, echo on the
    # baseline) while the sockets idle; a stall freezes every socket of the process.
    result["stalls"] = probe_stalls(kind, server, args.probe_seconds)
    st = result["stalls"]
    log(
        f"  {kind}: probe round trip p50 {st['p50']:.1f} ms, p99 {st['p99']:.0f} ms, max {st['max']:.0f} ms; "
        f"{st['over_200ms']} stalls over 200 ms in {args.probe_seconds:.0f} s"
    )

    # Alive and joined: a push from another process to a sample of the groups reaches its sockets.
    # Slowly first (the proof), then at --push-rate, then all at once: the layer keeps at most
    # `capacity` undelivered messages per server process (channels_redis's default is 100) and drops
    # the rest silently, so a process that stalls or drains slowly loses pushes.
    per_worker = max(1, args.verify // len(clients))
    picked = clients.all("sample", count=per_worker, seed=args.seed)
    groups = [group for p in picked for _, group in p["picked"]]
    checks = {}
    passes = (("slow", args.slow_push_rate, 30), ("paced", args.push_rate, 30), ("burst", 0, 15))
    for name, rate, timeout in passes:
        tag = f"bench-{uuid.uuid4().hex[:10]}"
        sent = push(kind, push_env, groups, tag, rate)
        needle = b64(tag) if kind == "platform" else tag
        got = clients.call(
            "expect", [{"picked": [i for i, _ in p["picked"]], "needle": needle, "timeout": timeout} for p in picked]
        )
        checks[name] = {
            "pushed": sent["sent"],
            "received": sum(g["received"] for g in got),
            "push_rate": sent["sent"] / sent["seconds"],
        }
        log(
            f"  {kind}: {name} push to {sent['sent']} groups from another process "
            f"({checks[name]['push_rate']:.0f}/s): {checks[name]['received']} received"
        )
    alive = clients.all("alive")
    result["verify"] = {
        **checks["slow"],
        "paced": checks["paced"],
        "burst": checks["burst"],
        "open": sum(a["open"] for a in alive),
    }
    log(f"  {kind}: {result['verify']['open']} of {opened} sockets open")
    # The same first message again on open sockets: the talk's cost on a socket, without the opening.
    if args.again:
        time.sleep(1)
        cpu_a = cpu_seconds(pid)
        got = clients.all(
            "again", kind=kind, count=max(1, args.again // len(clients)), concurrency=per_worker_concurrency
        )
        cpu = cpu_seconds(pid) - cpu_a
        count = sum(len(g["times"]) for g in got)
        result["again"] = {"messages": count, "cpu_ms": cpu * 1000 / max(1, count)}
        log(f"  {kind}: the first message again on {count} open sockets: {result['again']['cpu_ms']:.2f} ms CPU each")
    result["sockets"] = opened
    result["rss_mb"] = result["steps"][-1]["rss_mb"]
    result["fds"] = open_fds(pid)
    clients.all("close")
    return result


def probe_stalls(kind: str, server: Server, seconds: float) -> dict:
    from websockets.sync.client import connect

    times = []
    with connect(server.ws_url("/servlet/chatWs" if kind == "platform" else "/"), proxy=None, ping_interval=None) as ws:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.monotonic()
            ws.send("ping")
            ws.recv(timeout=60)
            times.append((time.monotonic() - started) * 1000)
            time.sleep(0.05)
    return {
        "probes": len(times),
        "p50": percentile(times, 50),
        "p99": percentile(times, 99),
        "max": max(times),
        "over_200ms": sum(1 for t in times if t > 200),
        "over_1s": sum(1 for t in times if t > 1000),
    }


def part_idle(args, clients: Clients, redis_keys: RedisKeys, work: Path) -> dict:
    wanted = args.sockets
    steps = sorted({s for s in args.steps if 0 < s < wanted} | {wanted})
    results = {"requested": wanted}

    database = Database(args, "idle", work)
    results["database"] = database.version()
    try:
        env = platform_env(database.url, args.redis_url, work / "idle")
        (work / "idle").mkdir(exist_ok=True)
        harness.prepare_database(env)
        for kind in args.kinds:
            server_env = env if kind == "platform" else echo_env(args.redis_url, work / "idle")
            application = "config.asgi:application" if kind == "platform" else "bench.echo_asgi:application"
            server = Server(application, server_env, work / f"idle-{kind}.log").start()
            try:
                # A process may hold no more descriptors than its limit: N is cut to what fits.
                with open(f"/proc/{server.pid}/limits") as f:
                    limit = int(next(line for line in f if line.startswith("Max open files")).split()[3])
                room = limit - open_fds(server.pid) - args.fd_reserve
                run_steps = [min(s, room) for s in steps]
                if run_steps[-1] < wanted:
                    log(
                        f"  {kind}: the server's file-descriptor limit is {limit} (hard): "
                        f"{run_steps[-1]} sockets instead of {wanted}"
                    )
                results.setdefault("fd_limit", limit)
                log(f"{kind}: {server.application} on port {server.port} (pid {server.pid}); code {server.code}")
                results[kind] = measure_idle(kind, server, clients, args, server_env, sorted(set(run_steps)))
                results[kind]["code"] = server.code
            finally:
                server.stop()
                results[kind + "_tracebacks"] = server.tracebacks()
                redis_keys.clean()
    finally:
        database.drop()
    return results


# ------------------------------------------------------------------------------------- part 2: latency


def schedule(operators: int, seconds: float, low: float, high: float, seed: int) -> list[list[float]]:
    """Each operator's send times (s from the start): gaps uniform in [low, high], the same for both
    servers of a run."""
    times = []
    for index in range(operators):
        rng = random.Random(seed * 1000 + index)
        at, mine = rng.uniform(0, high), []
        while at < seconds:
            mine.append(at)
            at += rng.uniform(low, high)
        times.append(mine)
    return times


async def ws_connect(url: str, headers: dict | None = None):
    from websockets.asyncio.client import connect

    return await connect(
        url,
        additional_headers=headers,
        ping_interval=None,
        compression=None,
        proxy=None,
        open_timeout=60,
        max_queue=None,
    )


class LatencyRun:
    """One client process, one clock: the operators' sockets send, the visitors' sockets receive."""

    TAG = re.compile(r"bench-(\d+)-")

    def __init__(self, plan: list[list[float]], dialogs: int):
        self.plan = plan
        self.sent_at: dict[int, float] = {}
        self.latency: dict[int, float] = {}
        self.acked: dict[int, float] = {}
        self.errors = Counter()
        self.dialogs = dialogs

    def received(self, text: str):
        found = self.TAG.search(text)
        if found:
            key = int(found.group(1))
            if key in self.sent_at and key not in self.latency:
                self.latency[key] = time.monotonic() - self.sent_at[key]

    async def read_visitor(self, ws, decode: bool):
        try:
            async for text in ws:
                if decode:
                    try:
                        frame = json.loads(text)
                    except ValueError:
                        continue
                    values = frame.get("values") or {}
                    text = unb64(values.get("text", "")) if isinstance(values, dict) else ""
                self.received(text)
        except Exception:
            pass

    async def send_loop(self, index: int, send, targets: list, started: float):
        """Operator `index`: its messages at the planned times, round robin over its dialogs."""
        for n, at in enumerate(self.plan[index]):
            delay = started + at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            key = index * 100_000 + n
            text = f"bench-{key}- message {n} from operator {index}"
            self.sent_at[key] = time.monotonic()
            await send(key, targets[n % len(targets)], text)

    async def run(self, senders, started_wait: float = 1.0):
        started = time.monotonic() + started_wait
        await asyncio.gather(*(self.send_loop(i, send, targets, started) for i, (send, targets) in enumerate(senders)))
        deadline = time.monotonic() + 10
        while len(self.latency) < len(self.sent_at) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    def figures(self) -> dict:
        values = [v * 1000 for v in self.latency.values()]
        acks = [v * 1000 for v in self.acked.values()]
        return {
            "sent": len(self.sent_at),
            "received": len(values),
            "p50": percentile(values, 50),
            "p90": percentile(values, 90),
            "p99": percentile(values, 99),
            "max": max(values, default=float("nan")),
            "mean": sum(values) / len(values) if values else float("nan"),
            "ack_p50": percentile(acks, 50),
            "ack_p99": percentile(acks, 99),
            "errors": dict(self.errors),
        }


async def latency_platform(a: Server, b: Server, consoles_cookies: list[str], plan, dialogs: int) -> dict:
    run = LatencyRun(plan, dialogs)
    operators = len(consoles_cookies)
    consoles, held = [], [[] for _ in range(operators)]
    contexts: dict[str, int] = {}  # context id -> dialog (request) id, as the consoles learn them
    dialog_of_console: dict[int, list] = {i: held[i] for i in range(operators)}

    async def read_console(index, ws):
        try:
            async for text in ws:
                message = json.loads(text)
                kind = message.get("type")
                if kind == "dialog":
                    card = message["dialog"]
                    if card["id"] not in dialog_of_console[index]:
                        dialog_of_console[index].append(card["id"])
                    contexts[card["contextId"]] = card["id"]
                elif kind == "sent" and "ref" in message:
                    key = message["ref"]
                    if key in run.sent_at:
                        run.acked[key] = time.monotonic() - run.sent_at[key]
                elif kind == "error":
                    run.errors[message.get("code", "error")] += 1
        except Exception:
            pass

    readers = []
    for index, cookie in enumerate(consoles_cookies):
        ws = await ws_connect(b.ws_url("/servlet/operator/ws"), {"Cookie": cookie, "Origin": b.base})
        state = json.loads(await ws.recv())
        if state.get("type") != "state":
            raise RuntimeError(f"console {index}: {state}")
        await ws.send(json.dumps({"action": "status", "status": "available"}))
        while json.loads(await ws.recv()).get("type") != "operator":
            pass
        consoles.append(ws)
        readers.append(asyncio.ensure_future(read_console(index, ws)))

    visitors, answers = [], Counter()
    gate = asyncio.Semaphore(10)

    async def visitor():
        async with gate:
            ws = await ws_connect(a.ws_url("/servlet/chatWs"))
            await ws.send(json.dumps(talk_frame(ADVISOR)))
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if frame.get("type") == "talkResponse":
                    break
            answers[unb64(frame["values"].get("typeResponse", ""))] += 1
            visitors.append(ws)

    await asyncio.gather(*(visitor() for _ in range(dialogs)))
    deadline = time.monotonic() + 60
    while sum(len(h) for h in held) < dialogs and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assigned = sum(len(h) for h in held)
    log(f"  platform: {dialogs} visitors on A: {dict(answers)}; {assigned} dialogs on the consoles")
    if assigned < dialogs:
        raise RuntimeError(f"only {assigned} of {dialogs} dialogs reached an operator")
    listeners = [asyncio.ensure_future(run.read_visitor(ws, decode=True)) for ws in visitors]

    def sender(index):
        ws = consoles[index]

        async def send(key, dialog_id, text):
            await ws.send(json.dumps({"action": "send", "dialog": dialog_id, "text": text, "ref": key}))

        return send

    await run.run([(sender(i), held[i]) for i in range(operators)])
    figures = run.figures()
    figures["assigned"] = assigned
    for ws in consoles + visitors:
        await ws.close()
    for task in readers + listeners:
        task.cancel()
    return figures


async def latency_echo(a: Server, b: Server, operators: int, plan, dialogs: int) -> dict:
    run = LatencyRun(plan, dialogs)
    visitors, groups = [], []
    gate = asyncio.Semaphore(10)

    async def visitor(index):
        async with gate:
            ws = await ws_connect(a.ws_url("/"))
            group = f"bench.visitor.{index}.{uuid.uuid4().hex[:8]}"
            await ws.send(json.dumps({"join": group, "text": ADVISOR}))
            await asyncio.wait_for(ws.recv(), 60)
            visitors.append(ws)
            groups.append(group)

    await asyncio.gather(*(visitor(i) for i in range(dialogs)))
    consoles = [await ws_connect(b.ws_url("/")) for _ in range(operators)]

    async def read_console(ws):
        try:
            async for text in ws:
                message = json.loads(text)
                found = run.TAG.search(message.get("sent", ""))
                if found and int(found.group(1)) in run.sent_at:
                    key = int(found.group(1))
                    run.acked[key] = time.monotonic() - run.sent_at[key]
        except Exception:
            pass

    readers = [asyncio.ensure_future(read_console(ws)) for ws in consoles]
    listeners = [asyncio.ensure_future(run.read_visitor(ws, decode=False)) for ws in visitors]
    per = dialogs // operators
    held = [groups[i * per : (i + 1) * per] for i in range(operators)]

    def sender(index):
        ws = consoles[index]

        async def send(key, group, text):
            await ws.send(json.dumps({"to": group, "text": text}))

        return send

    await run.run([(sender(i), held[i]) for i in range(operators)])
    figures = run.figures()
    figures["assigned"] = dialogs
    for ws in consoles + visitors:
        await ws.close()
    for task in readers + listeners:
        task.cancel()
    return figures


def part_latency(args, redis_keys: RedisKeys, work: Path) -> dict:
    plan = schedule(args.operators, args.seconds, args.gap_min, args.gap_max, args.seed)
    results = {"planned": sum(len(p) for p in plan)}
    if "platform" in args.kinds:
        database = Database(args, "latency", work)
        results["database"] = database.version()
        folder = work / "latency"
        folder.mkdir(exist_ok=True)
        env = platform_env(database.url, args.redis_url, folder)
        servers = []
        try:
            harness.prepare_database(env)
            servers = [Server("config.asgi:application", env, work / f"latency-platform-{n}.log").start() for n in "ab"]
            a, b = servers
            log(f"platform: process A on port {a.port} (visitors), B on port {b.port} (operators); code {a.code}")
            results["code"] = a.code
            admin = harness.Browser(a, timeout=60)
            token = admin.form("POST", "/servlet/api/authentication", {"login": "admin", "password": ADMIN_PASSWORD})[
                "token"
            ]
            per = args.dialogs // args.operators
            cookies = []
            for index in range(args.operators):
                login, password = f"bench-op{index:02d}", f"bench-op{index:02d}-{uuid.uuid4().hex[:10]}"
                fields = {"login": login, "password": password, "role": "operator"}
                admin.form("POST", "/servlet/api/bousers", fields, token)
                admin.form("PUT", f"/servlet/api/operators/availability/{login}", {"maxDialogs": str(per)}, token)
                cookies.append(harness.Browser(b, timeout=60).log_in(login, password))
            stops = [s.profile(args.profile, f"latency-platform-{n}") for s, n in zip(servers, "ab", strict=True)]
            cpu0 = [cpu_seconds(s.pid) for s in servers]
            results["platform"] = asyncio.run(latency_platform(a, b, cookies, plan, args.dialogs))
            for stop in stops:
                stop()
            results["platform"]["cpu_s"] = [cpu_seconds(s.pid) - c for s, c in zip(servers, cpu0, strict=True)]
        finally:
            for server in servers:
                server.stop()
            results["platform_tracebacks"] = sum(server.tracebacks() for server in servers)
            redis_keys.clean()
            database.drop()
    if "echo" in args.kinds:
        servers = []
        try:
            servers = [
                Server(
                    "bench.echo_asgi:application", echo_env(args.redis_url, work), work / f"latency-echo-{n}.log"
                ).start()
                for n in "ab"
            ]
            a, b = servers
            log(f"echo: process A on port {a.port} (visitors), B on port {b.port} (operators)")
            stops = [s.profile(args.profile, f"latency-echo-{n}") for s, n in zip(servers, "ab", strict=True)]
            cpu0 = [cpu_seconds(s.pid) for s in servers]
            results["echo"] = asyncio.run(latency_echo(a, b, args.operators, plan, args.dialogs))
            for stop in stops:
                stop()
            results["echo"]["cpu_s"] = [cpu_seconds(s.pid) - c for s, c in zip(servers, cpu0, strict=True)]
        finally:
            for server in servers:
                server.stop()
            results["echo_tracebacks"] = sum(server.tracebacks() for server in servers)
            redis_keys.clean()
    for kind in ("platform", "echo"):
        if kind in results:
            f = results[kind]
            log(
                f"  {kind}: {f['received']}/{f['sent']} messages, p50 {f['p50']:.1f} ms, p90 {f['p90']:.1f} ms, "
                f"p99 {f['p99']:.1f} ms, max {f['max']:.1f} ms"
            )
    return results


# ------------------------------------------------------------------------------------------ the report


def code_state() -> str:
    """The server code measured: its commit, and the files changed since (others edit it meanwhile)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", "config", "livechat", "dialogs", "bots", "knowledge"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "?"
    changed = [line[3:] for line in changed if line.strip()]
    return head + (f" + uncommitted changes to {', '.join(changed)}" if changed else "")


def machine() -> dict:
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ports = " - ".join(f.read().split())
    versions = {}
    for package in ("django", "channels", "channels_redis", "daphne", "twisted", "redis", "websockets"):
        try:
            from importlib.metadata import version

            versions[package] = version(package)
        except Exception:
            versions[package] = "?"
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "ram_gb": mem_kb / 2**20,
        "python": platform_module.python_version(),
        "load": os.getloadavg(),
        "nofile": nofile_limit(),
        "ports": ports,
        "versions": versions,
        "code": code_state(),
    }


def rss_at_20k(r: dict) -> float:
    return r["rss0_mb"] + r["steps"][-1]["rss_kb_per_socket"] * 20000 / 1024


def own_cpu(r: dict) -> tuple[float, float]:
    """The socket's own CPU: open+talk+join less the same talk over REST (gross, and net of idle cost)."""
    talk = r["rest"]["cpu_ms_per_talk"]
    return r["steps"][-1]["cpu_ms_per_socket"] - talk, r["cpu_ms_per_socket_net_of_idle"] - talk


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def report(info: dict, idle: dict | None, latency: dict | None, args) -> str:
    lines = []
    m = info["machine"]
    lines.append("")
    lines.append("Live-chat benchmark")
    lines.append(
        f"  machine: {m['cores']} cores ({m['cpu']}), {m['ram_gb']:.0f} GB RAM, Python {m['python']}, "
        f"load {m['load'][0]:.2f} at start / {info['load_end'][0]:.2f} at end"
    )
    lines.append(
        f"  services: {info.get('database', '?')}, {info.get('redis', '?')} ({args.redis_url}); "
        f"file descriptors per process: {m['nofile']}; ephemeral ports {m['ports']}"
    )
    v = m["versions"]
    lines.append(
        f"  daphne {v['daphne']} (Twisted {v['twisted']}), Django {v['django']}, channels {v['channels']}, "
        f"channels_redis {v['channels_redis']}, redis-py {v['redis']}; client websockets {v['websockets']}, "
        f"{args.clients} client processes"
    )
    lines.append(f"  server code: {m['code']}")
    if idle:
        lines.append("")
        lines.append(
            f"1. Idle sockets held by one daphne process, each joined to its group through Redis "
            f"(MATCHING_EMBEDDINGS=off; {idle.get('database', '')})"
        )
        header = f"  {'':34}" + "".join(f"{k:>22}" for k in ("platform (chatWs)", "baseline (bare echo)") if True)
        lines.append(header)
        p, e = idle.get("platform"), idle.get("echo")

        def row(label, fn, fmt):
            cells = []
            for r in (p, e):
                try:
                    cells.append(format(fn(r), fmt) if r else "-")
                except (KeyError, IndexError, TypeError, ValueError):
                    cells.append("-")
            lines.append(f"  {label:34}" + "".join(f"{c:>22}" for c in cells))

        row("sockets held", lambda r: r["sockets"], ",d")
        row("server RSS before (MB)", lambda r: r["rss0_mb"], ".1f")
        if p and p.get("code") != m["code"]:
            lines.append(f"  (platform server code when it started: {p.get('code')})")
        counts = max((r for r in (p, e) if r), key=lambda r: len(r["steps"]))["steps"]
        for index, step in enumerate(counts):

            def at(r, index=index):
                return r["steps"][index]

            row(f"  at ~{step['sockets']:,}: sockets", lambda r, at=at: at(r)["sockets"], ",d")
            row("    RSS (MB)", lambda r, at=at: at(r)["rss_mb"], ".1f")
            row("    RSS growth (KB/socket)", lambda r, at=at: at(r)["rss_kb_per_socket"], ".1f")
            row("    CPU (ms/socket, cumulative)", lambda r, at=at: at(r)["cpu_ms_per_socket"], ".2f")
            row("    opens/s in this step", lambda r, at=at: at(r)["rate"], ".0f")
        row("RSS extrapolated to 20,000 (MB)", rss_at_20k, ".0f")
        row("talk over REST (ms CPU/talk)", lambda r: r["rest"]["cpu_ms_per_talk"], ".2f")
        row("open+talk+join (ms CPU/socket)", lambda r: r["steps"][-1]["cpu_ms_per_socket"], ".2f")
        row("  the same net of idle cost", lambda r: r["cpu_ms_per_socket_net_of_idle"], ".2f")
        row("socket's own CPU (ms, − REST talk)", lambda r: own_cpu(r)[0], ".2f")
        row("  net of idle cost (ms)", lambda r: own_cpu(r)[1], ".2f")
        row("same message on an open socket (ms)", lambda r: r["again"]["cpu_ms"], ".2f")
        row(
            "open+join beyond it (ms CPU/socket)",
            lambda r: r["steps"][-1]["cpu_ms_per_socket"] - r["again"]["cpu_ms"],
            ".2f",
        )
        row("open to answer p50 (ms, client)", lambda r: r["open_ms"]["p50"], ".0f")
        row("open to answer p99 (ms, client)", lambda r: r["open_ms"]["p99"], ".0f")
        row("idle CPU (% of a core)", lambda r: r["idle"]["core_percent"], ".1f")
        row("failed opens", lambda r: sum(r["open_errors"].values()), "d")
        row("loop stalls: probe p50 / max (ms)", lambda r: f"{r['stalls']['p50']:.1f} / {r['stalls']['max']:.0f}", "")
        row("  probes over 200 ms / over 1 s", lambda r: f"{r['stalls']['over_200ms']} / {r['stalls']['over_1s']}", "")
        row("slow push: sent / received", lambda r: f"{r['verify']['pushed']} / {r['verify']['received']}", "")
        row(
            f"push at {args.push_rate:g}/s: sent / received",
            lambda r: f"{r['verify']['paced']['pushed']} / {r['verify']['paced']['received']}",
            "",
        )
        row(
            "burst push: sent / received",
            lambda r: f"{r['verify']['burst']['pushed']} / {r['verify']['burst']['received']}",
            "",
        )
        row("sockets still open at the end", lambda r: r["verify"]["open"], ",d")
        if p:
            extrapolated = rss_at_20k(p)
            own, net = own_cpu(p)
            held = p["sockets"] >= TARGETS["sockets"]
            verified = p["verify"]["received"] == p["verify"]["pushed"] and p["verify"]["open"] == p["sockets"]
            lines.append(
                f"  target >= 20,000 sockets: {p['sockets']:,} held"
                + (
                    ""
                    if held
                    else f" (only {idle['requested']:,} asked)"
                    if idle["requested"] < TARGETS["sockets"]
                    else f" ({idle['requested']:,} asked; the server's file-descriptor limit is {idle.get('fd_limit')})"
                )
                + f", every socket open and every sampled group reached: {verified}"
            )
            lines.append(
                f"  target <= 1 GB: {p['rss_mb']:.0f} MB at {p['sockets']:,} ({extrapolated:.0f} MB at 20,000): "
                f"{verdict(extrapolated <= TARGETS['rss_mb'] and p['rss_mb'] <= TARGETS['rss_mb'])}"
            )
            lines.append(
                f"  target <= 3 ms CPU beyond the talk: {own:.2f} ms ({net:.2f} ms net of idle cost): "
                f"{verdict(own <= TARGETS['open_cpu_ms'])}"
            )
    if latency:
        lines.append("")
        lines.append(
            f"2. Operator-to-visitor latency, {args.dialogs} live dialogs, {args.operators} operators on process B, "
            f"visitors on process A, one Redis ({latency.get('database', '')}); one message per operator every "
            f"{args.gap_min:g}-{args.gap_max:g} s for {args.seconds:g} s"
        )
        if latency.get("code") and latency["code"] != m["code"]:
            lines.append(f"  (platform server code when they started: {latency['code']})")
        lines.append(f"  {'':34}" + "".join(f"{k:>22}" for k in ("platform", "baseline (bare echo)")))
        p, e = latency.get("platform"), latency.get("echo")

        def lrow(label, key, fmt):
            cells = [format(r[key], fmt) if r else "-" for r in (p, e)]
            lines.append(f"  {label:34}" + "".join(f"{c:>22}" for c in cells))

        lrow("messages sent", "sent", "d")
        lrow("messages received", "received", "d")
        for key in ("p50", "p90", "p99", "max", "mean"):
            lrow(f"latency {key} (ms)", key, ".1f")
        lrow("sender's ack p50 (ms)", "ack_p50", ".1f")
        lrow("sender's ack p99 (ms)", "ack_p99", ".1f")
        lines.append(
            f"  {'server CPU A / B (s)':34}"
            + "".join(f"{(' / '.join(f'{c:.1f}' for c in r['cpu_s']) if r else '-'):>22}" for r in (p, e))
        )
        if p:
            ok = p["p50"] <= TARGETS["p50_ms"] and p["p99"] <= TARGETS["p99_ms"] and p["received"] == p["sent"]
            lines.append(f"  target p50 <= 20 ms, p99 <= 100 ms, none lost: {verdict(ok)}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ main


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432/livechatbench")
    parser.add_argument("--database-url", default="", help="one scratch database, recreated for each part")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--parts", nargs="+", choices=["idle", "latency"], default=["idle", "latency"])
    parser.add_argument("--kinds", nargs="+", choices=["platform", "echo"], default=["platform", "echo"])
    parser.add_argument("--sockets", type=int, default=20000, help="idle sockets per server (N)")
    parser.add_argument(
        "--steps", type=lambda s: [int(x) for x in s.split(",") if x], default=None, help="intermediate counts"
    )
    parser.add_argument("--rest-talks", type=int, default=None, help="REST talks for the talk's CPU (default N)")
    parser.add_argument("--rest-threads", type=int, default=2, help="keep-alive connections per client process")
    parser.add_argument("--clients", type=int, default=4, help="client processes for part 1")
    parser.add_argument("--open-concurrency", type=int, default=32, help="sockets opening at once (all clients)")
    parser.add_argument("--idle-seconds", type=float, default=30)
    parser.add_argument("--again", type=int, default=2000, help="open sockets that send their first message again")
    parser.add_argument("--verify", type=int, default=600, help="sockets sampled for the push check")
    parser.add_argument("--slow-push-rate", type=float, default=25, help="pushes per second of the proof")
    parser.add_argument("--push-rate", type=float, default=100, help="pushes per second of the second pass")
    parser.add_argument("--probe-seconds", type=float, default=30, help="how long the stall probe runs")
    parser.add_argument("--fd-reserve", type=int, default=100, help="descriptors the server keeps for itself")
    parser.add_argument("--dialogs", type=int, default=200)
    parser.add_argument("--operators", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--gap-min", type=float, default=1.0)
    parser.add_argument("--gap-max", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", type=Path, default=None, help="py-spy the servers into this folder")
    parser.add_argument("--keep", action="store_true", help="keep the servers' logs (a temporary folder)")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure to this file")
    parser.add_argument("--push", choices=["platform", "echo"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.push:
        push_phase(args.push)
        return
    if args.steps is None:
        args.steps = [args.sockets // 4, args.sockets // 2]
    if args.dialogs % args.operators:
        parser.error("--dialogs must be a multiple of --operators")
    if not shutil.which(DAPHNE) and not Path(DAPHNE).exists():
        parser.error(f"daphne is not installed next to {PYTHON}")

    raise_nofile()
    started = time.monotonic()
    info = {"machine": machine()}
    redis_keys = RedisKeys(args.redis_url)
    redis_keys.check()
    info["redis"] = redis_keys.version()
    work = Path(tempfile.mkdtemp(prefix="bench-livechat-"))
    idle = latency = None
    clients = None
    try:
        if "idle" in args.parts:
            clients = Clients(args.clients)
            log(f"part 1: idle sockets, N = {args.sockets}, steps {args.steps}, {args.clients} client processes")
            idle = part_idle(args, clients, redis_keys, work)
            info["database"] = idle["database"]
            clients.stop()
            clients = None
        if "latency" in args.parts:
            log(f"part 2: latency, {args.dialogs} dialogs, {args.operators} operators, {args.seconds:g} s")
            latency = part_latency(args, redis_keys, work)
            info.setdefault("database", latency.get("database", "?"))
    finally:
        if clients is not None:
            clients.stop()
        left = redis_keys.clean()
        if left:
            log(f"removed {left} Redis keys left behind")
        if args.keep:
            log(f"server logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    info["load_end"] = os.getloadavg()
    info["seconds"] = time.monotonic() - started
    if args.json:
        args.json.write_text(json.dumps({"info": info, "idle": idle, "latency": latency}, indent=1, default=str))
    print(report(info, idle, latency, args))
    print(f"\n  ({info['seconds'] / 60:.1f} minutes)")


if __name__ == "__main__":
    main()
