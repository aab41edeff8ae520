"""ASGI entry point: HTTP and the chat websockets, served by daphne."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs Django set up first)

from livechat.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # No origin check: the chatbox runs on the customers' sites and sends no credentials.
        "websocket": URLRouter(websocket_urlpatterns),
    }
)
