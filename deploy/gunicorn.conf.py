"""gunicorn's configuration for an app server: N uvicorn worker processes, each serving
config.asgi:application (HTTP and websockets), behind nginx (deploy/nginx.conf.template).

Read by `gunicorn -c deploy/gunicorn.conf.py` (supervisord starts it: deploy/supervisord.conf.template).
Settings come from the environment, so that one file serves the single-machine test layout
(`make prod`) and real app machines:

    PROD_BIND            where the workers listen (127.0.0.1:8001; 0.0.0.0:8001 on an app machine
                         that nginx reaches over the network)
    PROD_WORKERS         worker processes (default: one per core; each loads the matching models)
    FORWARDED_ALLOW_IPS  the proxies whose X-Forwarded-For / X-Forwarded-Proto are believed
                         (default 127.0.0.1,::1: nginx on the same machine)
"""

import ctypes
import os
import signal
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


def post_worker_init(worker):
    """The matching models are loaded before the worker serves (gunicorn calls this once the application
    is imported, before the worker accepts): loaded at its first talk instead, they kept that worker's
    event loop from answering websocket handshakes for seconds on a busy machine."""
    from knowledge.matching.embeddings import load_models

    load_models()
