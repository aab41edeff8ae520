"""The layout's gunicorn worker: uvicorn's, with a stop that always ends and websocket messages bounded
(deploy/gunicorn.conf.py).

uvicorn waits, on a stop, for every connection to finish its request and for every ASGI task to end,
with no limit unless told one; gunicorn's master enforces its graceful timeout by killing a worker that
outlives it. A worker orphaned by a killed master (told to stop by the kernel, see post_fork) has nobody
to do that: one client that never finished sending its request kept it, and the port, forever.

It also bounds websocket messages in uvicorn itself (livechat/bounds.py): uvicorn's default accepts 16 MiB,
and 20 anonymous sockets sending 15 MB frames took two workers from 475 MB to 1.5-3.6 GB, never given
back. With `ws_max_size` at the application's limit, uvicorn's websocket protocol (websockets' sans-I/O
parser) fails a frame whose header declares more with 1009 before reading its payload, and checks a
fragmented or compressed message as it grows; deploy/websocket_protocol.py makes sure the client reads
that code. That parser reads a socket's next message only once the
application has taken the last one, so uvicorn's `ws_max_queue` (used only by its older "websockets"
protocol) does not apply.
"""

import os
import threading

from uvicorn_worker import UvicornWorker

from deploy.websocket_protocol import AppWebSocketProtocol


class AppWorker(UvicornWorker):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn cancels what still runs once gunicorn's graceful timeout has passed, as the master
        # would have killed the worker then.
        self.config.timeout_graceful_shutdown = self.cfg.graceful_timeout
        # uvicorn's websockets-sans-I/O protocol, named rather than "auto" (which would quietly take
        # wsproto, buffering differently, without the websockets package), with its refusals reaching
        # the client (deploy/websocket_protocol.py).
        self.config.ws = AppWebSocketProtocol

    def run(self) -> None:
        # The application is loaded by now (gunicorn imports it before running the worker), and so are
        # Django's settings, where the limit is configured.
        from livechat.bounds import server_message_max_bytes

        self.config.ws_max_size = server_message_max_bytes()
        super().run()
        # The server has stopped; the interpreter's exit still joins every non-daemon thread, and a sync
        # view stuck in a call (a database that stopped answering) would hold it there. Past the
        # graceful timeout again, the process ends anyway.
        deadline = threading.Timer(self.cfg.graceful_timeout, os._exit, args=(1,))
        deadline.daemon = True
        deadline.start()
