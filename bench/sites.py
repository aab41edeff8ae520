"""An ASGI application served for the load benchmarks the way the production layout serves the
platform: gunicorn with deploy/gunicorn.conf.py (N uvicorn workers), behind an nginx of its own rendered
from the layout's template (deploy/prod.py, proxy role: the same TLS, buffering and keep-alive). The
bare Django view, the matcher alone and the platform on SQLite run this way, beside the real layout."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from deploy.scratch import ScratchLayout, children, free_port  # noqa: E402
from tests.servers import wait_for_port  # noqa: E402


class GunicornSite:
    """`application` (module:attribute) under gunicorn with the layout's configuration and `workers`
    workers, with `env` as the workers' environment (the caller's by default), and nginx in front."""

    def __init__(self, application: str, workers: int, env: dict | None = None):
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="bench-site-"))
        self.log_path = self.folder / "gunicorn.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 (open while it runs)
        environment = {
            **{k: v for k, v in (env or os.environ).items() if not k.startswith("PROD_")},
            "PROD_BIND": f"127.0.0.1:{self.port}",
            "PROD_WORKERS": str(workers),
            "PROD_DIR": str(self.folder),
            "GUNICORN_LOG_LEVEL": "warning",
        }
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        self.process = subprocess.Popen(
            [gunicorn, "-c", str(REPO / "deploy" / "gunicorn.conf.py"), application],
            cwd=REPO,
            env=environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.port, timeout=120, process=self.process)
        self.proxy = ScratchLayout(
            "", "", workers=workers, env={"PROD_ROLE": "proxy", "PROD_APP_SERVERS": f"127.0.0.1:{self.port}"}
        ).start()

    @property
    def https_port(self) -> int:
        return self.proxy.https_port

    def worker_pids(self) -> list[int]:
        return children(self.process.pid)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self):
        self.proxy.stop()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
