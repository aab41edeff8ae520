"""The bots app: bots, their languages and consultation spaces, and the servlet conventions."""

from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    verbose_name = "Bots"
