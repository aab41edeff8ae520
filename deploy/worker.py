"""The layout's gunicorn worker: uvicorn's, with a stop that always ends (deploy/gunicorn.conf.py).

uvicorn waits, on a stop, for every connection to finish its request and for every ASGI task to end,
with no limit unless told one; gunicorn's master enforces its graceful timeout by killing a worker that
outlives it. A worker orphaned by a killed master (told to stop by the kernel, see post_fork) has nobody
to do that: one client that never finished sending its request kept it, and the port, forever.
"""

import os
import threading

from uvicorn_worker import UvicornWorker


class AppWorker(UvicornWorker):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn cancels what still runs once gunicorn's graceful timeout has passed, as the master
        # would have killed the worker then.
        self.config.timeout_graceful_shutdown = self.cfg.graceful_timeout

    def run(self) -> None:
        super().run()
        # The server has stopped; the interpreter's exit still joins every non-daemon thread, and a sync
        # view stuck in a call (a database that stopped answering) would hold it there. Past the
        # graceful timeout again, the process ends anyway.
        deadline = threading.Timer(self.cfg.graceful_timeout, os._exit, args=(1,))
        deadline.daemon = True
        deadline.start()
