"""The livechat app: operators, availability, and the websocket consumers of the chat."""

from django.apps import AppConfig


class LivechatConfig(AppConfig):
    name = "livechat"
    verbose_name = "Live chat"
