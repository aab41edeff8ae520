"""The production layout on one machine, as it runs on several: nginx (TLS, websockets, static files) in
front of gunicorn with N uvicorn workers serving config.asgi:application, and the background work (vector
jobs, live chat's clocks: manage.py run_background) as a program of its own, on PostgreSQL and Redis,
all kept running by supervisord. `make prod` and `make prod-stop` call this.

    python deploy/prod.py start [--foreground]   # renders the configs, migrates, starts, waits until it answers
    python deploy/prod.py stop
    python deploy/prod.py status

Environment (options of the same name override it):

    DATABASE_URL, REDIS_URL  required: PostgreSQL and Redis hold every state, the processes none
    SECRET_KEY               the same on every app machine (else generated once into DATA_DIR)
    PROD_DIR                 generated configs, certificate, logs, sockets (data/prod)
    PROD_LISTEN              nginx's address (127.0.0.1; 0.0.0.0 to be reached from elsewhere)
    PROD_HTTPS_PORT          8443 (PROD_HTTP_PORT 8080 only redirects to it)
    PROD_APP_PORT            8001: where gunicorn listens (PROD_BIND overrides: 0.0.0.0:8001)
    PROD_WORKERS             worker processes (one per core)
    PROD_SERVER_NAME         the name clients use (127.0.0.1): printed URLs, the self-signed certificate
    PROD_ROLE                all (default), app (gunicorn only) or proxy (nginx only): one role per machine
    PROD_APP_SERVERS         the proxy's app servers, comma-separated host:port (this machine's gunicorn)
    PROD_BACKGROUND          on (default): an app machine runs the background work beside gunicorn; off:
                             it leaves it to the other app machines (one of them at least must run it)
    TLS_CERT, TLS_KEY        a real certificate; without them a self-signed one is made on the first start
    STATIC_ROOT              where collectstatic writes and nginx reads (staticfiles/)
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import re
import resource
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
BIN = Path(sys.executable).parent


def fail(message: str) -> None:
    print(f"prod: {message}", file=sys.stderr)
    sys.exit(2)


class Layout:
    """Where everything goes and how it is configured, from the environment and the options."""

    def __init__(self, args: argparse.Namespace):
        env = os.environ
        self.dir = Path(args.dir or env.get("PROD_DIR") or REPO / "data" / "prod").resolve()
        self.logs = self.dir / "logs"
        self.role = args.role or env.get("PROD_ROLE") or "all"
        if self.role not in ("all", "app", "proxy"):
            fail(f"PROD_ROLE must be all, app or proxy, not {self.role!r}")
        self.listen = args.listen or env.get("PROD_LISTEN") or "127.0.0.1"
        self.https_port = int(args.https_port or env.get("PROD_HTTPS_PORT") or 8443)
        self.http_port = int(args.http_port or env.get("PROD_HTTP_PORT") or 8080)
        self.app_port = int(args.app_port or env.get("PROD_APP_PORT") or 8001)
        self.bind = env.get("PROD_BIND") or f"127.0.0.1:{self.app_port}"
        self.workers = str(args.workers or env.get("PROD_WORKERS") or os.cpu_count() or 2)
        self.server_name = env.get("PROD_SERVER_NAME") or "127.0.0.1"
        servers = env.get("PROD_APP_SERVERS") or self.bind.replace("0.0.0.0", "127.0.0.1")
        self.app_servers = [server.strip() for server in servers.split(",") if server.strip()]
        self.background = args.background or env.get("PROD_BACKGROUND") or "on"
        if self.background not in ("on", "off"):
            fail(f"PROD_BACKGROUND must be on or off, not {self.background!r}")
        self.static_root = Path(env.get("STATIC_ROOT") or REPO / "staticfiles").resolve()
        self.tls_cert = env.get("TLS_CERT") or ""
        self.tls_key = env.get("TLS_KEY") or ""
        self.supervisor_conf = self.dir / "supervisord.conf"
        self.nginx_conf = self.dir / "nginx.conf"
        self.pidfile = self.dir / "supervisord.pid"

    @property
    def runs_app(self) -> bool:
        return self.role in ("all", "app")

    @property
    def runs_background(self) -> bool:
        return self.runs_app and self.background == "on"

    @property
    def runs_proxy(self) -> bool:
        return self.role in ("all", "proxy")

    @property
    def base_url(self) -> str:
        return f"https://{self.server_name}:{self.https_port}"

    def environment(self) -> dict:
        """What the app processes see: the caller's environment plus where static files and the
        workers go (supervisord passes its environment on; no secret is written to disk)."""
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings"),
            "STATIC_ROOT": str(self.static_root),
            "PROD_BIND": self.bind,
            "PROD_DIR": str(self.dir),
            "PROD_WORKERS": self.workers,
            # The web workers only serve: the background program (here or on another app machine) runs
            # the vector jobs and the clocks.
            "BACKGROUND_WORK": "separate",
        }


# ------------------------------------------------------------------------------------------ checks


def check_services(layout: Layout) -> None:
    """Several processes (several machines) share their state only through PostgreSQL and Redis."""
    database = os.environ.get("DATABASE_URL", "")
    redis = os.environ.get("REDIS_URL", "")
    missing = [name for name, value in (("DATABASE_URL", database), ("REDIS_URL", redis)) if not value]
    if missing:
        fail(
            f"{' and '.join(missing)} must be set: the production layout keeps its state in PostgreSQL and Redis, "
            "e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/bots REDIS_URL=redis://127.0.0.1:6379/1 make prod"
        )
    if not database.startswith(("postgres://", "postgresql://", "pgsql://")):
        fail(f"DATABASE_URL must name a PostgreSQL database (postgres://…), not {database.split(':')[0]}:…")
    if not redis.startswith(("redis://", "rediss://", "unix://")):
        fail(f"REDIS_URL must name a Redis server (redis://host:port/db), not {redis.split(':')[0]}:…")


def nginx_binary(install: bool = True) -> str:
    """Debian's nginx; installed with apt-get when missing (as `make browser` does for chromium)."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
    if found or not install:
        return found or ""
    print("prod: installing Debian's nginx (apt-get)")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "nginx"]):
        done = subprocess.run([*sudo, *command], env=environment, capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"could not install nginx ({' '.join(command)}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else "")
    if not found:
        fail("apt-get installed nginx but no nginx binary is on the PATH or in /usr/sbin")
    return found


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def check_ports(layout: Layout) -> None:
    wanted = []
    if layout.runs_proxy:
        wanted += [
            ("PROD_HTTPS_PORT", layout.listen, layout.https_port),
            ("PROD_HTTP_PORT", layout.listen, layout.http_port),
        ]
    if layout.runs_app:
        host, _, port = layout.bind.rpartition(":")
        wanted.append(("PROD_APP_PORT", host.strip("[]") or "0.0.0.0", int(port)))
    for name, host, port in wanted:
        if not port_is_free(host, port):
            fail(f"port {port} on {host} is in use: free it or choose another with {name}")


def running_pid(layout: Layout) -> int | None:
    try:
        pid = int(layout.pidfile.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return pid


# ------------------------------------------------------------------------------------------ preparing


def manage(layout: Layout, *args: str, show: bool = False) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=layout.environment(), capture_output=True, text=True
    )
    if done.returncode != 0:
        fail(f"manage.py {' '.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    if show:
        print(done.stdout, end="")
    return done.stdout


def certificate(layout: Layout) -> tuple[str, str]:
    """TLS_CERT / TLS_KEY when set (a real certificate); else a self-signed one, made once, for local
    testing (browsers warn; clients can trust this file: PROD_DIR/tls/self-signed.crt)."""
    if layout.tls_cert or layout.tls_key:
        for name, path in (("TLS_CERT", layout.tls_cert), ("TLS_KEY", layout.tls_key)):
            if not path or not Path(path).is_file():
                fail(f"{name} must name a readable file (set both TLS_CERT and TLS_KEY, or neither)")
        return layout.tls_cert, layout.tls_key
    folder = layout.dir / "tls"
    cert, key = folder / "self-signed.crt", folder / "self-signed.key"
    if cert.exists() and key.exists():
        return str(cert), str(key)
    if shutil.which("openssl") is None:
        fail("openssl is needed to make the self-signed certificate (apt-get install openssl), or set TLS_CERT/TLS_KEY")
    folder.mkdir(parents=True, exist_ok=True)
    names = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"]
    name = layout.server_name
    if name not in ("localhost", "127.0.0.1", "::1"):
        names.append(f"IP:{name}" if name.replace(".", "").isdigit() or ":" in name else f"DNS:{name}")
    done = subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-sha256", "-days", "825", "-nodes",
            "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}",
            "-addext", "subjectAltName=" + ",".join(names),
        ],
        capture_output=True,
        text=True,
    )  # fmt: skip
    if done.returncode != 0:
        fail(f"openssl could not make the self-signed certificate:\n{done.stderr}")
    key.chmod(0o600)
    print(f"prod: made a self-signed certificate for local testing: {cert}")
    return str(cert), str(key)


def render(template: str, values: dict) -> str:
    text = (DEPLOY / template).read_text()
    for name, value in values.items():
        text = text.replace(f"@@{name}@@", str(value))
    left = sorted(set(re.findall(r"@@([A-Z_]+)@@", text)) - {"NAME"})  # @@NAME@@: the comments' own mention
    if left:
        raise RuntimeError(f"{template}: placeholders left unfilled: {', '.join(left)}")
    return text


def nginx_user_line() -> str:
    """As root, nginx's workers drop to www-data (Debian's web user), which must be able to read the
    static folder; as anyone else they keep that user (the directive would only warn)."""
    if os.geteuid() != 0:
        return "# Not started as root: the workers run as the user who started nginx."
    user = os.environ.get("PROD_NGINX_USER", "")
    if not user:
        try:
            pwd.getpwnam("www-data")
            user = "www-data"
        except KeyError:
            user = "nobody"
    return (
        f"# Started as root, the workers drop to this user (it must be able to read the static folder).\nuser {user};"
    )


def write_configs(layout: Layout, nginx: str, cert: str, key: str) -> None:
    layout.dir.mkdir(parents=True, exist_ok=True)
    layout.logs.mkdir(exist_ok=True)
    (layout.dir / "nginx").mkdir(exist_ok=True)
    # nginx's workers (www-data under root) write request bodies under the prefix folder.
    for folder in (layout.dir, layout.dir / "nginx"):
        folder.chmod(0o755)
    limits = app_limits(layout)
    if limits["cors_all"]:
        cors = '        default "*";'
    else:
        cors = '        default "";\n' + "\n".join(
            f'        "{origin}" $http_origin;' for origin in limits["cors_origins"] if '"' not in origin
        )
    values = {
        "DIR": layout.dir,
        "LOGS": layout.logs,
        "REPO": REPO,
        "BIN": BIN,
        "NGINX": nginx or "nginx",
        "USER_LINE": nginx_user_line(),
        "MIME_TYPES": Path(nginx_conf_folder(nginx)) / "mime.types",
        "CHAT_MAX_BODY": limits["chat"],
        "IMPORT_MAX_BODY": limits["import"],
        "UPLOAD_MAX_BODY": limits["upload"],
        "OTHER_MAX_BODY": limits["other"],
        "CORS_ORIGINS": cors,
        "UPSTREAM_SERVERS": "\n".join(
            f"        server {server} max_fails=1 fail_timeout=5s;" for server in layout.app_servers
        ),
        "LISTEN": layout.listen if ":" not in layout.listen else f"[{layout.listen}]",
        "HTTP_PORT": layout.http_port,
        "HTTPS_PORT": layout.https_port,
        "TLS_CERT": cert,
        "TLS_KEY": key,
        "STATIC_ROOT": layout.static_root,
    }
    if layout.runs_proxy:
        layout.nginx_conf.write_text(render("nginx.conf.template", values))
    # One role per machine: only its programs.
    programs = [render("program-app.conf.template", values)] if layout.runs_app else []
    programs += [render("program-background.conf.template", values)] if layout.runs_background else []
    programs += [render("program-nginx.conf.template", values)] if layout.runs_proxy else []
    layout.supervisor_conf.write_text(render("supervisord.conf.template", {**values, "PROGRAMS": "\n".join(programs)}))


def app_limits(layout: Layout) -> dict:
    """The app's own body limits and CORS origins, from its settings (bots/servlet/limits.py decides
    them for every server): nginx refuses what the app would, before reading it."""
    script = (
        "import json, django; django.setup(); from django.conf import settings; "
        "from bots.servlet.limits import limit_for; "
        "print(json.dumps({'chat': limit_for('/servlet/api/chat/talk/').max_bytes, "
        "'import': limit_for('/servlet/api/bot/knowledgebase/import/').max_bytes, "
        "'upload': limit_for('/servlet/fileupload').max_bytes, "
        "'other': limit_for('/servlet/api/').max_bytes, 'cors_all': settings.CORS_ALLOW_ALL_ORIGINS, "
        "'cors_origins': list(settings.CORS_ALLOWED_ORIGINS)}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=layout.environment(), capture_output=True, text=True
    )
    if done.returncode != 0:
        fail(f"could not read the app's body limits from its settings:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def nginx_conf_folder(nginx: str) -> str:
    """Where this nginx keeps mime.types (Debian: /etc/nginx)."""
    if nginx:
        done = subprocess.run([nginx, "-V"], capture_output=True, text=True)
        for part in done.stderr.split():
            if part.startswith("--conf-path="):
                return str(Path(part.split("=", 1)[1]).parent)
    return "/etc/nginx"


# ------------------------------------------------------------------------------------------ commands


def wait_until_ready(layout: Layout, timeout: float = 180) -> None:
    """The layout answers: the server status over https through nginx (or, app role, from gunicorn)."""
    if layout.runs_proxy:
        url = f"https://127.0.0.1:{layout.https_port}/servlet/api/serverstatus"
        if layout.listen not in ("127.0.0.1", "0.0.0.0", "::", "localhost"):
            url = f"https://{layout.listen}:{layout.https_port}/servlet/api/serverstatus"
    else:
        host, _, port = layout.bind.rpartition(":")
        host = "127.0.0.1" if host in ("0.0.0.0", "") else host
        url = f"http://{host}:{port}/servlet/api/serverstatus"
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # only "does it answer"; the certificate is checked by the tests
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if running_pid(layout) is None:
            break
        try:
            with urllib.request.urlopen(url, timeout=5, context=context if url.startswith("https") else None) as answer:
                if answer.status == 200:
                    return
        except urllib.error.HTTPError as error:
            if error.code not in (502, 503, 504):  # not "still starting": a configuration error
                fail(f"{url} answered {error.code}: {error.read()[:500]!r} (see {layout.logs / 'app.log'})")
            last = str(error)
        except (urllib.error.URLError, OSError) as error:
            last = str(error)
        time.sleep(0.5)
    tail = ""
    for name in ("app.log", "nginx-error.log", "supervisord.log"):
        path = layout.logs / name
        if path.exists():
            tail += f"\n--- {path} (end) ---\n" + path.read_text(errors="replace")[-2500:]
    fail(f"the layout did not answer at {url} ({last or 'supervisord exited'}){tail}")


def raise_open_files() -> None:
    """Every websocket holds a file: the processes get as many as the machine allows (they inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start(layout: Layout, foreground: bool) -> None:
    pid = running_pid(layout)
    if pid is not None:
        print(f"prod: already running (supervisord {pid}); `make prod-stop` stops it. {layout.base_url}/demo/")
        return
    if layout.runs_app:
        check_services(layout)
    nginx = nginx_binary() if layout.runs_proxy else ""
    check_ports(layout)
    cert, key = certificate(layout) if layout.runs_proxy else ("", "")
    if layout.runs_app and os.environ.get("PROD_MIGRATE", "1") != "0":
        # With several app machines, the first one migrates (PROD_MIGRATE=0 on the others).
        manage(layout, "migrate", "--noinput")
        manage(layout, "seed_demo", "--base-url", layout.base_url, show=True)
    if layout.runs_proxy:
        manage(layout, "collectstatic", "--noinput", "--clear", "--verbosity", "0")
        layout.static_root.chmod(0o755)
    write_configs(layout, nginx, cert, key)
    if layout.runs_proxy:
        prefix, error_log = f"{layout.dir}/nginx/", str(layout.logs / "nginx-error.log")
        test = [nginx, "-t", "-q", "-p", prefix, "-c", str(layout.nginx_conf), "-e", error_log]
        done = subprocess.run(test, capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"nginx refuses the configuration {layout.nginx_conf}:\n{done.stderr}")
    raise_open_files()
    command = [str(BIN / "supervisord"), "-c", str(layout.supervisor_conf)]
    if foreground:
        os.chdir(REPO)
        os.execve(command[0], [*command, "--nodaemon"], layout.environment())
    done = subprocess.run(command, cwd=REPO, env=layout.environment(), capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"supervisord did not start:\n{done.stdout}{done.stderr}")
    wait_until_ready(layout)
    print(
        f"prod: running ({layout.role}: {layout.workers} workers on {layout.bind}"
        + (f", nginx on https://{layout.listen}:{layout.https_port}" if layout.runs_proxy else "")
        + (", the background work" if layout.runs_background else "")
        + f"). Processes: {BIN / 'supervisorctl'} -c {layout.supervisor_conf} status; logs in {layout.logs}; "
        "stop: make prod-stop"
    )


def stop(layout: Layout) -> None:
    pid = running_pid(layout)
    if pid is None:
        print("prod: not running")
        return
    subprocess.run(
        [str(BIN / "supervisorctl"), "-c", str(layout.supervisor_conf), "shutdown"], capture_output=True, text=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and running_pid(layout) is not None:
        time.sleep(0.2)
    if running_pid(layout) is not None:  # supervisorctl could not reach it: ask supervisord directly
        os.kill(pid, signal.SIGTERM)
        while running_pid(layout) is not None and time.monotonic() < deadline + 30:
            time.sleep(0.2)
    print("prod: stopped" if running_pid(layout) is None else f"prod: supervisord {pid} is still running")


def status(layout: Layout) -> None:
    if running_pid(layout) is None:
        print("prod: not running")
        sys.exit(3)
    done = subprocess.run([str(BIN / "supervisorctl"), "-c", str(layout.supervisor_conf), "status"])
    sys.exit(done.returncode)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["start", "stop", "status"])
    parser.add_argument("--foreground", action="store_true", help="supervisord stays in the foreground")
    parser.add_argument("--dir", help="PROD_DIR")
    parser.add_argument("--role", help="PROD_ROLE")
    parser.add_argument("--listen", help="PROD_LISTEN")
    parser.add_argument("--https-port", help="PROD_HTTPS_PORT")
    parser.add_argument("--http-port", help="PROD_HTTP_PORT")
    parser.add_argument("--app-port", help="PROD_APP_PORT")
    parser.add_argument("--workers", help="PROD_WORKERS")
    parser.add_argument("--background", help="PROD_BACKGROUND")
    args = parser.parse_args(argv)
    layout = Layout(args)
    {"start": lambda: start(layout, args.foreground), "stop": lambda: stop(layout), "status": lambda: status(layout)}[
        args.command
    ]()


if __name__ == "__main__":
    main()
