"""The bots app: bots, their languages and consultation spaces, and the servlet conventions."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BotsConfig(AppConfig):
    name = "bots"
    verbose_name = _("Bots")

    def ready(self):
        from django.core.signals import got_request_exception

        from bots.servlet.middleware import remember_failure
        from bots.status import checks

        # The server status: the process, the database and the shared cache, the meters, the router.
        checks.register_own()
        # A database error raised outside a view (a session saved by its middleware) becomes a 500
        # page on its way out; the outage middleware answers 503 instead when it sees it marked here.
        got_request_exception.connect(remember_failure, dispatch_uid="bots.servlet.remember_failure")
