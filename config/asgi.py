"""ASGI entry point: HTTP and the chat websockets, served by daphne."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs Django set up first)

from livechat.routing import websocket_urlpatterns  # noqa: E402
from livechat.timers import with_timers  # noqa: E402

# Each server process runs live chat's clocks (timeouts, dead consoles) once it serves a connection.
application = with_timers(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": URLRouter(websocket_urlpatterns),
        }
    )
)
