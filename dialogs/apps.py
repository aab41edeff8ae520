"""The dialogs app: dialogs (contexts), interactions, feedback, and the chat servlet group."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DialogsConfig(AppConfig):
    name = "dialogs"
    verbose_name = _("Dialogs")

    def ready(self):
        from bots.status import checks, volumes

        from . import status

        # The server status: the dialogs' store, the dialog log, analytics, and the live dialogs.
        checks.register("dialog", status.dialog_store, needs=["database"])
        checks.register("slogger", status.slogger, needs=["database"])
        checks.register("analytic", status.analytic, needs=["database"])
        volumes.register("currentDialogs", status.current_dialogs)
