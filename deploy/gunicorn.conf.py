"""gunicorn's configuration for an app server: N uvicorn worker processes, each serving
config.asgi:application (HTTP and websockets), behind nginx (deploy/nginx.conf.template).

Read by `gunicorn -c deploy/gunicorn.conf.py` (supervisord starts it: deploy/supervisord.conf.template).
Settings come from the environment, so that one file serves the single-machine test layout
(`make prod`) and real app machines:

    PROD_BIND            where the workers listen (127.0.0.1:8001; 0.0.0.0:8001 on an app machine
                         that nginx reaches over the network)
    PROD_WORKERS         worker processes (default: one per core; they share the matching models)
    PROD_SHARED_MODELS   "off": each worker loads every matching model itself, as before the models were
                         shared (the baseline of bench/worker_memory.py); default: the master loads them
    FORWARDED_ALLOW_IPS  the proxies whose X-Forwarded-For / X-Forwarded-Proto are believed
                         (default 127.0.0.1,::1: nginx on the same machine)
"""

import ctypes
import gc
import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

wsgi_app = "config.asgi:application"
chdir = str(REPO)
bind = [os.environ.get("PROD_BIND", "127.0.0.1:8001")]
workers = int(os.environ.get("PROD_WORKERS") or os.environ.get("WEB_CONCURRENCY") or os.cpu_count() or 2)
# Each worker learns how many share the machine's cores, and keeps its matching's side threads to its
# share of them (knowledge/matching/workers.py).
os.environ["WEB_CONCURRENCY"] = str(workers)
# Every worker serves HTTP and websockets; live chat crosses workers (and machines) through Redis.
worker_class = "deploy.worker.AppWorker"
proc_name = "bots-app"
# gunicorn's control socket (gunicornc) goes in the layout's folder: its default, one path in the
# user's home, would be shared by every gunicorn this user runs (another layout, a benchmark).
if os.environ.get("PROD_DIR"):
    control_socket = str(Path(os.environ["PROD_DIR"]) / "gunicorn.ctl")
else:
    control_socket_disable = True

# A worker whose event loop stops answering for this long is killed and replaced; sync views run in
# a thread, so a slow talk or import does not count against it.
timeout = 30
# On a restart or a stop, requests in flight get this long to finish; websockets are closed (1012)
# and the chatbox reconnects.
graceful_timeout = 20
# nginx keeps idle upstream connections for 60 s (keepalive_timeout in the upstream block): the
# workers must keep them longer, or nginx may send a request on a connection the worker is closing,
# and a POST (a talk) is not retried: the visitor would get an error.
keepalive = 75

# Client addresses: uvicorn takes REMOTE_ADDR and the scheme from X-Forwarded-For / X-Forwarded-Proto
# sent by these proxies only (the login lockout counts per address; Django's CSRF check needs https).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# nginx keeps the access log; the workers log errors (and the application's own log) to stderr,
# which supervisord writes to app.log.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# Heartbeat files in memory: a worker's notification must not wait on a busy disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

PR_SET_PDEATHSIG = 1


def post_fork(server, worker):
    """A worker dies with its master. Killed with SIGKILL, gunicorn's master cannot stop its workers:
    orphaned, they would keep the port, so the master supervisord starts again could not bind it, and
    they would serve on unsupervised. The kernel sends them SIGTERM (uvicorn's graceful stop) when
    the master dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the master's normal stop still ends its workers
        return
    if os.getppid() != worker.ppid:  # the master died before the call above
        os.kill(os.getpid(), signal.SIGTERM)


# The platform's application, whose master loads the models its bots need for its workers. bench/ serves
# other ones with this configuration: the matcher alone (its workers load every model, as they always did)
# and the bare Django view, which needs none (its worker is the baseline of a worker's memory).
PLATFORM_APP = "config.asgi:application"
NO_MODELS_APPS = {"bench.bare_django:application"}
SHARED_MODELS = os.environ.get("PROD_SHARED_MODELS", "").strip().lower() not in {"0", "off", "false", "no"}
# The bots' languages as the master read them (None: unknown, every model), inherited by the workers.
bot_languages = None


def when_ready(server):
    """The matching models are loaded once, here in the master before it forks the workers: each worker
    inherits the weights' pages and, as nobody writes to them, the machine holds one copy for all its
    workers (copy-on-write) instead of one per worker (about 300 MB each with both models). Only the models
    the bots' languages need are loaded (MiniLM for English only); a language a bot gains later has its
    model loaded by each worker at its first use.

    Nothing that cannot cross a fork is made here: the languages come from `manage.py bot_languages` in a
    process of its own, so that the master never imports Django nor opens a database connection its
    workers would inherit; the models start no thread pool before the fork (embeddings.load_shared_models),
    and the workers still import the application themselves (a reload, HUP, serves new code, except in
    knowledge/matching/, which the master holds: a deploy restarts the master)."""
    global bot_languages
    if server.app.app_uri != PLATFORM_APP or not SHARED_MODELS:
        return
    from knowledge.matching.embeddings import available, load_shared_models

    if not available():
        return
    bot_languages = read_bot_languages(server.log)
    names = load_shared_models(bot_languages)
    preload_libraries()
    # The objects made so far (the models' Python parts: USE's vocabulary) are never garbage: out of the
    # collector's reach, a worker's collections do not write to their pages, which stay shared.
    gc.freeze()
    server.log.info(
        "Matching models loaded by the master (pid %s) for its workers: %s (bots' languages: %s)",
        os.getpid(),
        ", ".join(names) or "none",
        ", ".join(bot_languages) if bot_languages is not None else "unknown",
    )


# Libraries every worker imports, that open nothing when imported and read no setting: imported by the master,
# their code and module objects are shared by the workers as the models are (with 2 workers, a worker's PSS
# above a bare Django view's was 157 MB with the models shared, 7 MB over the 150 MB aimed at; about 50 MB of
# RSS is these libraries'). Third-party only: the platform's own modules are still imported by each worker,
# so that a reload (HUP) serves new code.
SHARED_LIBRARIES = (
    "psycopg",
    "django.db.models",
    "django.core.handlers.asgi",
    "django.http",
    "lxml.etree",
    "lxml.html",
    "redis",
    "channels_redis.core",
)


def preload_libraries() -> None:
    import importlib

    for name in SHARED_LIBRARIES:
        try:
            importlib.import_module(name)
        except Exception:  # missing or refusing here: each worker imports it itself, as before
            continue


def read_bot_languages(log) -> list[str] | None:
    """The languages the bots speak, or None when the database cannot tell (then every model is loaded: a
    worker without the one its bots need would load it at a visitor's talk)."""
    try:
        done = subprocess.run(
            [sys.executable, str(REPO / "manage.py"), "bot_languages"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        log.warning("The bots' languages could not be read (%s): every matching model is loaded", error)
        return None
    if done.returncode != 0:
        log.warning("The bots' languages could not be read: every matching model is loaded\n%s", done.stderr[-2000:])
        return None
    return done.stdout.split()


def post_worker_init(worker):
    """The matching models are ready before the worker serves (gunicorn calls this once the application
    is imported, before the worker accepts): loaded at its first talk instead, they kept that worker's
    event loop from answering websocket handshakes for seconds on a busy machine. Inherited from the
    master (when_ready), only their per-process part starts here; a worker whose master did not load them
    (PROD_SHARED_MODELS=off) loads them itself."""
    if worker.app.app_uri in NO_MODELS_APPS:
        return
    from knowledge.matching.embeddings import load_models, loaded

    inherited = loaded()
    names = load_models(bot_languages)
    if names != inherited:
        worker.log.info("Matching models loaded by the worker (pid %s): %s", os.getpid(), ", ".join(names))
