"""Websocket routes: the chatbox connects to /servlet//chatWs (double slash), /servlet/chatWs or /chatWs;
the operators' console to /servlet/operator/ws with its back-office session."""

from channels.auth import AuthMiddlewareStack
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import re_path

from .consumers import ChatboxConsumer, OperatorConsumer, UnknownPathConsumer
from .unavailable import console_door

# The console rides on the session cookie, so only pages of this site may open it (no cross-site
# websocket hijacking); the chatbox runs on customers' sites and sends no credentials. Reading the session
# needs the database: while it is down the console is told so and closed with 1013 (console_door).
operator_console = AllowedHostsOriginValidator(console_door(AuthMiddlewareStack(OperatorConsumer.as_asgi())))

websocket_urlpatterns = [
    re_path(r"^(servlet/+)?/*chatWs/?$", ChatboxConsumer.as_asgi()),
    re_path(r"^/?servlet/operator/ws/?$", operator_console),
    re_path(r"", UnknownPathConsumer.as_asgi()),
]
