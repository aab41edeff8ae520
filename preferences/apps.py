"""The preferences app: bot and account preferences with a registry of known keys."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PreferencesConfig(AppConfig):
    name = "preferences"
    verbose_name = _("Preferences")

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from accounts.saml import preference_source
        from bots.status import checks

        from . import saml_source, status
        from .models import BotPreference

        # SAML (in accounts, below this app) reads its bot preferences through what this app registers.
        preference_source.register(saml_source)
        post_save.connect(saml_source.changed, sender=BotPreference, dispatch_uid="saml_preference_saved")
        post_delete.connect(saml_source.changed, sender=BotPreference, dispatch_uid="saml_preference_deleted")

        # The server status: SAML for chatboxes is a bot preference.
        checks.register("sso", status.sso, needs=["database"])
