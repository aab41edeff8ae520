"""The preferences app: bot and account preferences with a registry of known keys."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PreferencesConfig(AppConfig):
    name = "preferences"
    verbose_name = _("Preferences")

    def ready(self):
        from bots.status import checks

        from . import status

        # The server status: SAML for chatboxes is a bot preference.
        checks.register("sso", status.sso, needs=["database"])
