"""The production layout (deploy/prod.py) started in a scratch folder on free ports, for the tests
(tests/deploy/) and the load benchmark (bench/talk_load.py): the same nginx, gunicorn and supervisord
as `make prod`, on the database and Redis they are given, and what they need to look inside it.

    with ScratchLayout(database_url, redis_url, workers=2) as layout:
        layout.request("POST", "/servlet/api/chat/talk/…", body, headers)   # https through nginx
        layout.worker_pids(), layout.app_master_pid(), layout.background_pid(), layout.nginx_master_pid()
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROD = REPO / "deploy" / "prod.py"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(FileNotFoundError):  # the process is exiting
            found.extend(int(child) for child in task.read_text().split())
    return found


def descendants(pid: int) -> list[int]:
    found, pending = [], children(pid)
    while pending:
        child = pending.pop()
        found.append(child)
        pending.extend(children(child))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


class ScratchLayout:
    """One machine's whole layout (PROD_ROLE all) in a temporary folder. The folder is outside any
    private one (pytest's is root-only): nginx's workers run as www-data and read the static files."""

    def __init__(self, database_url: str, redis_url: str, *, workers: int = 2, env: dict | None = None):
        self.folder = Path(tempfile.mkdtemp(prefix="prod-layout-"))
        self.folder.chmod(0o755)
        self.dir = self.folder / "prod"
        self.https_port, self.http_port, self.app_port = free_port(), free_port(), free_port()
        self.workers = workers
        self.env = {
            **{name: value for name, value in os.environ.items() if not name.startswith("PROD_")},
            "DATA_DIR": str(self.folder / "data"),
            "STATIC_ROOT": str(self.folder / "static"),
            "PROD_DIR": str(self.dir),
            "PROD_HTTPS_PORT": str(self.https_port),
            "PROD_HTTP_PORT": str(self.http_port),
            "PROD_APP_PORT": str(self.app_port),
            "PROD_WORKERS": str(workers),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            **(env or {}),
        }
        # A proxy-only layout has no database or Redis of its own.
        self.env.update({name: url for name, url in (("DATABASE_URL", database_url), ("REDIS_URL", redis_url)) if url})
        self.started_output = ""

    # ------------------------------------------------------------------ starting and stopping

    def prod(self, command: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(PROD), command],
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self) -> ScratchLayout:
        done = self.prod("start")
        self.started_output = done.stdout + done.stderr
        if done.returncode != 0:
            self.stop()
            raise RuntimeError(f"deploy/prod.py start failed:\n{self.started_output[-6000:]}")
        return self

    def stop(self) -> None:
        """supervisord stops its programs; whatever is left of them (a test killed things) is killed."""
        supervisord = self.supervisord_pid()
        left = descendants(supervisord) if supervisord else []
        self.prod("stop", timeout=120)
        for pid in [supervisord, *left, *(descendants(supervisord) if supervisord else [])]:
            if pid and alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> ScratchLayout:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ requests through nginx

    @property
    def certificate(self) -> Path:
        return self.dir / "tls" / "self-signed.crt"

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def ssl_context(self) -> ssl.SSLContext:
        """Trusts the layout's self-signed certificate (made for 127.0.0.1), and checks it."""
        return ssl.create_default_context(cafile=str(self.certificate))

    def connection(self, timeout: float = 30) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection("127.0.0.1", self.https_port, timeout=timeout, context=self.ssl_context())

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, dict, bytes]:
        """One request on a new connection: (status, headers with lower-case names, body)."""
        connection = self.connection()
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    # ------------------------------------------------------------------ the processes

    def supervisorctl(self, *args: str) -> str:
        done = subprocess.run(
            [str(Path(sys.executable).with_name("supervisorctl")), "-c", str(self.dir / "supervisord.conf"), *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return done.stdout.strip()

    def supervisord_pid(self) -> int | None:
        try:
            return int((self.dir / "supervisord.pid").read_text().strip())
        except (FileNotFoundError, ValueError):
            return None

    def app_master_pid(self) -> int | None:
        """gunicorn's master (supervisord's `app` program), or None while it is not running."""
        answer = self.supervisorctl("pid", "app")
        return int(answer) if answer.isdigit() and int(answer) > 0 and alive(int(answer)) else None

    def background_pid(self) -> int | None:
        """The background work's process (supervisord's `background` program), or None while it is not running."""
        answer = self.supervisorctl("pid", "background")
        return int(answer) if answer.isdigit() and int(answer) > 0 and alive(int(answer)) else None

    def worker_pids(self) -> list[int]:
        master = self.app_master_pid()
        return [pid for pid in children(master) if alive(pid)] if master else []

    def nginx_master_pid(self) -> int | None:
        try:
            pid = int((self.dir / "nginx.pid").read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if alive(pid) else None

    def nginx_worker_pids(self) -> list[int]:
        master = self.nginx_master_pid()
        return [pid for pid in children(master) if alive(pid)] if master else []

    def wait_for(self, condition, what: str, timeout: float = 120):
        """Polls `condition` until it returns something true (returned), or fails saying `what`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.2)
        raise TimeoutError(f"{what}: not after {timeout} s{self.log_tails()}")

    def log_tails(self, chars: int = 2000) -> str:
        """The end of each program's log, to say why something did not happen."""
        logs = ""
        for name in ("supervisord.log", "app.log", "nginx-error.log"):
            path = self.dir / "logs" / name
            if path.exists():
                logs += f"\n--- {name} ---\n" + path.read_text(errors="replace")[-chars:]
        return logs

    def answers(self) -> bool:
        """The server status answers 200 through nginx."""
        try:
            status, _, _ = self.request("GET", "/servlet/api/serverstatus")
        except OSError:
            return False
        return status == 200
