"""The preferences app: bot and account preferences with a registry of known keys."""

from django.apps import AppConfig


class PreferencesConfig(AppConfig):
    name = "preferences"
    verbose_name = "Preferences"
