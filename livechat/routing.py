"""Websocket routes: the chatbox connects to /servlet//chatWs (double slash), /servlet/chatWs or /chatWs."""

from django.urls import re_path

from .consumers import ChatboxConsumer

websocket_urlpatterns = [
    re_path(r"^(servlet/+)?/*chatWs/?$", ChatboxConsumer.as_asgi()),
]
