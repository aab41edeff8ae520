"""Real server processes for the tests where processes matter: a scratch database migrated and seeded
as `make run` does, daphne processes serving it (HTTP and websockets), a private Redis when the machine's
is not configured, and a small HTTP client that logs in like a person (session cookie) or a script (token).
The benchmarks (bench/livechat.py) start their servers with this same harness.

    with Platform(tmp_path, processes=2, redis=True) as platform:
        a, b = platform.servers
        a.url("/demo/"), b.ws_url("/servlet/chatWs")

The fault tests stop and restart the services under the servers, so they run them privately: a
PostgreSQL of their own (initdb on a free port, in a temporary folder) and a Redis of their own, never
the machine's shared ones.

    with PrivatePostgres() as postgres, Platform(tmp_path, database_url=postgres.create_database("bots"),
                                                  redis_url=PrivateRedis(tmp_path).start().url) as platform:
        postgres.stop(); ...; postgres.start()

Data sets are made through the platform's own servlet API and management commands, never by the test
process's ORM: the servers only see what a real deployment would.
"""

import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
DAPHNE = str(Path(PYTHON).with_name("daphne"))
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
ADMIN_PASSWORD = "demo-admin-" + uuid.uuid4().hex[:12]
BOT_UUID = "d3b0d3b0-0000-4000-8000-000000000001"


def first_talk_body(text: str, client_id: str, **extra: str) -> bytes:
    """A visitor's first talk as the chatbox sends it (form-encoded), with `extra` fields added."""
    fields = {
        "userInput": text,
        "clientId": client_id,
        "language": "fr",
        "space": "Defaut",
        "solutionUsed": "ASSISTANT",
        "alreadyCame": "false",
        "qualificationMode": "false",
        "variables": "{}",
        **extra,
    }
    return urllib.parse.urlencode(fields).encode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30, process: subprocess.Popen | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the process on port {port} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


class PrivateRedis:
    """A Redis of the test's own, on a free port, that keeps nothing on disk."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.folder = folder
        self.process = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, process=self.process)
        return self

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


def postgres_binary(name: str) -> str | None:
    """initdb, pg_ctl…: from PATH, else from Debian's versioned folder."""
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / name).exists():
            return str(folder / name)
    return None


class PrivatePostgres:
    """A PostgreSQL server of the test's own: initdb in a temporary folder, a free TCP port, trust auth,
    no fsync. `stop()` and `start()` take it down and bring it back with its data, as an outage would.
    Commits are synchronous (written to the WAL before they are acknowledged, as in production): with
    synchronous_commit off, a crash (`stop("immediate")`) lost talks that had been answered 200.

    PostgreSQL refuses to run as root: under root the folder is given to the `postgres` user and the
    server runs as that user. The folder is outside pytest's own (which only root may enter)."""

    def __init__(self, durable: bool = False):
        # Tests keep fsync off for speed (their data is thrown away and a crash test uses `stop("immediate")`,
        # which fsync does not change); benchmarks pass durable=True to measure PostgreSQL's default durability.
        self.durable = durable
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="private-postgres-"))
        self.data = self.folder / "data"
        self.log_path = self.folder / "server.log"
        self.running = False
        self._prefix: list[str] = []
        if os.geteuid() == 0:
            self._prefix = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.folder, "postgres", "postgres")

    @staticmethod
    def available() -> bool:
        if postgres_binary("initdb") is None or postgres_binary("pg_ctl") is None:
            return False
        if os.geteuid() == 0:
            import pwd

            try:
                pwd.getpwnam("postgres")
            except KeyError:
                return False
        return True

    def _run(self, name: str, *args: str, timeout: float = 60):
        done = subprocess.run(
            [*self._prefix, postgres_binary(name), *args], capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise RuntimeError(f"{name} {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def start(self):
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder}"
            " -c max_connections=100"
        )
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log_path), "-o", options, "-w", "-t", "60", "start")
        self.running = True
        return self

    def stop(self, mode: str = "fast"):
        """fast: clients are disconnected, as when the database is stopped; immediate: as a crash."""
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")
            self.running = False

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def scratch_database(folder: Path, name: str) -> tuple[str, callable]:
    """A database for the servers: a SQLite file, or a fresh PostgreSQL database on the server that
    DATABASE_URL names (trust auth, as in CI). Returns (url, drop)."""
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        path = folder / f"{name}.sqlite3"
        return f"sqlite:///{path}", lambda: None
    import psycopg

    parts = urllib.parse.urlsplit(base)
    admin_url = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    database = f"{name}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{database}"')

    def drop():
        with psycopg.connect(admin_url, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')

    return urllib.parse.urlunsplit(parts._replace(path=f"/{database}")), drop


class Server:
    """One server process serving the platform: daphne (what `make run` serves); with kind="uvicorn",
    gunicorn managing one uvicorn worker (the production layout's server; its worker is a child process);
    with kind="wsgi", gunicorn with one sync worker on config.wsgi (plain HTTP, no websockets); with
    kind="layout", gunicorn with the production layout's configuration (deploy/gunicorn.conf.py; its
    workers as PROD_WORKERS in `env` says, its master loading the matching models).
    `application`: what daphne serves (a benchmark's baseline serves its own); `preexec_fn` runs in the
    child before it starts (a benchmark raises its file-descriptor limit)."""

    def __init__(
        self,
        env: dict,
        log: Path,
        kind: str = "daphne",
        *,
        application: str = "config.asgi:application",
        preexec_fn=None,
        stop_timeout: float = 10,
    ):
        self.port = free_port()
        self.env = env
        self.log_path = log
        self.kind = kind
        self.application = application
        self.preexec_fn = preexec_fn
        self.stop_timeout = stop_timeout
        self.process = None

    def command(self) -> list[str]:
        if self.kind == "uvicorn":
            return [
                *(GUNICORN, "--workers", "1", "--worker-class", "uvicorn_worker.UvicornWorker"),
                *("--bind", f"127.0.0.1:{self.port}", "config.asgi:application"),
            ]
        if self.kind == "layout":
            return [GUNICORN, "-c", str(ROOT / "deploy" / "gunicorn.conf.py"), self.application]
        if self.kind == "wsgi":
            return [GUNICORN, "--workers", "1", "--bind", f"127.0.0.1:{self.port}", "config.wsgi:application"]
        return [DAPHNE, "-b", "127.0.0.1", "-p", str(self.port), self.application]

    def start(self):
        self.log = open(self.log_path, "wb")  # noqa: SIM115 (kept open while the server runs)
        env = self.env
        if self.kind == "layout":
            # Its own folder for gunicorn's control socket: another layout server may run beside it.
            folder = self.log_path.with_suffix(".d")
            folder.mkdir(exist_ok=True)
            env = {**env, "PROD_BIND": f"127.0.0.1:{self.port}", "PROD_DIR": str(folder)}
        self.process = subprocess.Popen(
            self.command(),
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            preexec_fn=self.preexec_fn,
        )
        wait_for_port(self.port, process=self.process)
        return self

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            # On SIGINT (quick stop) gunicorn 27 left its uvicorn worker running until killed 10 s later:
            # SIGTERM is gunicorn's graceful stop. daphne stops on SIGINT.
            self.process.send_signal(signal.SIGINT if self.kind == "daphne" else signal.SIGTERM)
            try:
                self.process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def kill(self):
        """The process dies at once, as a crashed server would."""
        self.process.kill()
        self.process.wait()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def ws_url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def process_ids(self) -> list[int]:
        """The server process and its descendants (gunicorn's workers), from /proc."""
        found, pending = [], [self.process.pid]
        while pending:
            pid = pending.pop()
            found.append(pid)
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                pending.extend(int(child) for child in task.read_text().split())
        return found


def manage(env: dict, *args: str, timeout: float = 300) -> str:
    """`manage.py ARGS` in a process of its own, with the servers' environment; its output."""
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def prepare_database(env: dict):
    """The scratch database made as `make run` makes it: migrated, the demo bot and administrator seeded."""
    manage(env, "migrate", "--noinput")
    manage(env, "seed_demo", "--quiet-urls")


class Platform:
    """A scratch installation: database, optional Redis, and `processes` daphne servers sharing them."""

    def __init__(
        self,
        folder: Path,
        *,
        processes: int = 1,
        redis: bool = False,
        grace_seconds: int = 30,
        timer_seconds: float = 1.0,
        database_url: str | None = None,
        redis_url: str | None = None,
        extra_env: dict | None = None,
    ):
        """database_url / redis_url: services of the test's own (e.g. PrivatePostgres, PrivateRedis)
        instead of a scratch database on DATABASE_URL's server and the machine's (or a private) Redis."""
        self.folder = folder
        self.database_url = database_url
        self.redis_url = redis_url
        self.extra_env = extra_env or {}
        self.processes = processes
        self.want_redis = redis
        self.grace_seconds = grace_seconds
        self.timer_seconds = timer_seconds
        self.servers: list[Server] = []
        self.redis = None
        self._drop = lambda: None

    def __enter__(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.database_url:
            database_url = self.database_url
        else:
            database_url, self._drop = scratch_database(self.folder, "livechat_it")
        redis_url = self.redis_url or ""
        if self.want_redis and not redis_url:
            redis_url = os.environ.get("REDIS_URL", "")
            if not redis_url:
                self.redis = PrivateRedis(self.folder).start()
                redis_url = self.redis.url
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
            "DATABASE_URL": database_url,
            "DATA_DIR": str(self.folder),
            "DEMO_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "MATCHING_EMBEDDINGS": "off",
            "LIVECHAT_TIMER_SECONDS": str(self.timer_seconds),
            "LIVECHAT_OPERATOR_GRACE_SECONDS": str(self.grace_seconds),
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            **self.extra_env,
        }
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        prepare_database(self.env)
        for index in range(self.processes):
            self.servers.append(Server(self.env, self.folder / f"server-{index}.log").start())
        return self

    def start_server(self, kind: str = "daphne") -> Server:
        """One more server process on the same database (stopped with the platform)."""
        server = Server(self.env, self.folder / f"server-{len(self.servers)}-{kind}.log", kind).start()
        self.servers.append(server)
        return server

    def __exit__(self, *exc):
        for server in self.servers:
            server.stop()
        if self.redis is not None:
            self.redis.stop()
        self._drop()

    def manage(self, *args: str) -> str:
        return manage(self.env, *args)

    def admin_token(self) -> str:
        return Browser(self.servers[0]).post_form(
            "/servlet/api/authentication", {"login": "admin", "password": ADMIN_PASSWORD}
        )["token"]

    def add_operator(
        self, login: str, password: str, *, max_dialogs: int | None = None, display_name: str | None = None
    ) -> None:
        """A back-office user with the operator role, made through the BO users servlet as an admin would;
        `display_name`: the name visitors see (else the bot's word for an operator: never the login)."""
        server = Browser(self.servers[0])
        token = self.admin_token()
        server.post_form(
            "/servlet/api/bousers", {"login": login, "password": password, "role": "operator"}, token=token
        )
        if max_dialogs is not None:
            server.put_form(
                f"/servlet/api/operators/availability/{login}", {"maxDialogs": str(max_dialogs)}, token=token
            )
        if display_name is not None:
            server.put_form(f"/servlet/api/operators/availability/{login}", {"displayName": display_name}, token=token)


class Browser:
    """HTTP as a person's browser does it: cookies kept, the back-office login form with its CSRF token."""

    def __init__(self, server: Server, timeout: float = 30):
        self.server = server
        self.timeout = timeout
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        request = urllib.request.Request(self.server.url(path), data=body, method=method, headers=headers or {})
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def form(self, method: str, path: str, fields: dict, token: str | None = None) -> dict:
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if token:
            headers["Authorization"] = token
        status, body = self.request(method, path, urllib.parse.urlencode(fields).encode(), headers)
        if status >= 400:
            raise AssertionError(f"{method} {path} answered {status}: {body[:500]!r}")
        return json.loads(body) if body.strip() else {}

    def post_form(self, path: str, fields: dict, token: str | None = None) -> dict:
        return self.form("POST", path, fields, token)

    def put_form(self, path: str, fields: dict, token: str | None = None) -> dict:
        return self.form("PUT", path, fields, token)

    def get_json(self, path: str, token: str | None = None) -> dict:
        status, body = self.request("GET", path, headers={"Authorization": token} if token else {})
        assert status == 200, (status, body[:500])
        return json.loads(body)

    def log_in(self, login: str, password: str) -> str:
        """Log in to the back office; returns the Cookie header value of the session."""
        status, page = self.request("GET", "/admin/login/")
        assert status == 200, status
        csrf = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
        fields = {"csrfmiddlewaretoken": csrf, "username": login, "password": password, "next": "/livechat/"}
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Referer": self.server.url("/admin/login/")}
        self.request("POST", "/admin/login/", urllib.parse.urlencode(fields).encode(), headers)
        names = {cookie.name: cookie.value for cookie in self.cookies}
        assert "sessionid" in names, "the back-office login failed"
        return "; ".join(f"{name}={value}" for name, value in names.items())
