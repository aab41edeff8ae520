"""The knowledge app: knowledge items, formulations, answers, matching and knowledge-base exchange."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = _("Knowledge")

    def ready(self):
        from bots.status import checks
        from preferences import registry

        from . import (
            locks,  # noqa: F401  (items are locked before they are deleted)
            preference_checks,
            signals,  # noqa: F401  (knowledge writes bump the bot's knowledge version)
            status,
        )

        # A "matching-group" preference (bot.no.group.uuid) names one of the bot's matching groups: checked here.
        registry.register_check("matching-group", preference_checks.matching_group_of_bot)

        # The server status: the matcher is part of the dialog engine's check.
        checks.register("dialog", status.matcher)
        # ... and so are the vector jobs in progress and the matching indexes' memory (knowledge/vectors/).
        checks.register("dialog", status.vectors, needs=["database"])
