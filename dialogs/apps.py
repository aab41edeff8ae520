"""The dialogs app: dialogs (contexts), interactions, feedback, and the chat servlet group."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DialogsConfig(AppConfig):
    name = "dialogs"
    verbose_name = _("Dialogs")

    def ready(self):
        from bots.status import checks, volumes
        from knowledge.backoffice import field_checks
        from knowledge.exchange import survey_part

        from . import status
        from .slots import checks as slot_checks
        from .surveys import exchange as survey_exchange

        # A bot's surveys in its knowledge-base file are written and read by this app.
        survey_part.register(survey_exchange)

        # A Slot knowledge item's fields are checked in the back office by this app's slot checks.
        field_checks.register(slot_checks.FIELDS)

        # The server status: the dialogs' store, the dialog log, analytics, and the live dialogs.
        checks.register("dialog", status.dialog_store, needs=["database"])
        checks.register("slogger", status.slogger, needs=["database"])
        checks.register("analytic", status.analytic, needs=["database"])
        volumes.register("currentDialogs", status.current_dialogs)
