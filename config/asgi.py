"""ASGI entry point: HTTP and the chat websockets, served by daphne."""

import gc
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from config.http import PooledThreadHandler  # noqa: E402  (needs Django set up first)

# Django's ASGI handler with each request's sync work on a pooled thread (config/http.py).
django_asgi_app = PooledThreadHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs Django set up first)

from bots.servlet.gate import gated_chat  # noqa: E402
from bots.servlet.limits import bounded_bodies  # noqa: E402
from bots.servlet.tls_refusal import install_tls_refusal  # noqa: E402
from knowledge.vectors.worker import with_vector_worker  # noqa: E402
from livechat.bounds import bounded_sockets  # noqa: E402
from livechat.routing import websocket_urlpatterns  # noqa: E402
from livechat.timers import with_timers  # noqa: E402

# A process holding thousands of websockets has millions of objects: Python's full collections then
# froze it for 2-3 s every 10-25 s (bench/LIVECHAT.md). What exists after start-up is never garbage,
# and collecting the youngest generation less often leaves far fewer objects to the full ones.
# Under daphne on plain HTTP, a TLS handshake (a chatbox's wss:// try) is refused at once, not left to time
# out (bots/servlet/tls_refusal.py).
install_tls_refusal()

gc.freeze()
gc.set_threshold(50_000, 20, 10)

# Each server process runs live chat's clocks (timeouts, dead consoles) and the vector worker (formulation
# vectors computed in the background after an import) once it serves a connection, unless BACKGROUND_WORK is
# "separate" (make prod: manage.py run_background runs them, and this process's worker only upgrades its
# bots' matchers once their vectors are stored);
# every request body is bounded before it is read (bots/servlet/limits.py, daphne's own reading too);
# chat calls take turns, a few at a time (bots/servlet/gate.py); websocket messages are bounded per path and
# open websockets per process (livechat/bounds.py, daphne's own reading too).
application = bounded_bodies(
    with_vector_worker(
        with_timers(
            ProtocolTypeRouter(
                {
                    "http": gated_chat(django_asgi_app),
                    "websocket": bounded_sockets(URLRouter(websocket_urlpatterns)),
                }
            )
        )
    )
)
