"""The dialogs app: dialogs (contexts), interactions, feedback, and the chat servlet group."""

from django.apps import AppConfig


class DialogsConfig(AppConfig):
    name = "dialogs"
    verbose_name = "Dialogs"
