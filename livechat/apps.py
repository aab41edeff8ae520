"""The livechat app: operators and their availability, the waiting queue, the websockets of the
chatbox and of the operators' console, and the Operators availability and Callback servlet groups."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LivechatConfig(AppConfig):
    name = "livechat"
    verbose_name = _("Live chat")

    def ready(self):
        from bots.status import checks, volumes
        from dialogs import handover

        from . import status
        from .handover import LivechatHandover

        handover.register(LivechatHandover())
        from .uploads import cleanup  # noqa: F401  (a visitor's file is deleted with its row)

        self.follow_supervision()
        self.settings_with_every_bot()

        # The server status: the transport (the channel layer) and the queue, operators and dialogs.
        checks.register("livechat", status.transport)
        checks.register("livechat", status.queue, needs=["database"])
        volumes.register("connectedOperators", status.connected_operators)
        volumes.register("currentLivechatDialogs", status.current_livechat_dialogs)

    @staticmethod
    def settings_with_every_bot():
        from django.db.models.signals import post_save

        from bots.models import Bot

        from .settings_rows import give_bot_its_settings

        post_save.connect(give_bot_its_settings, sender=Bot, dispatch_uid="livechat.settings_row")

    @staticmethod
    def follow_supervision():
        """Monitored bots are remembered per process, supervisors' consoles follow their right: both are
        told when a preference or a membership changes."""
        from django.db.models.signals import post_delete, post_save

        from accounts.models import Membership
        from bots.models import Bot
        from preferences.models import BotPreference

        from . import supervisors

        post_save.connect(supervisors.preference_changed, sender=BotPreference, dispatch_uid="livechat.monitored")
        post_delete.connect(supervisors.preference_changed, sender=BotPreference, dispatch_uid="livechat.unmonitored")
        post_save.connect(supervisors.bot_changed, sender=Bot, dispatch_uid="livechat.monitored.bot")
        post_delete.connect(supervisors.bot_changed, sender=Bot, dispatch_uid="livechat.monitored.gone")
        post_save.connect(supervisors.rights_changed, sender=Membership, dispatch_uid="livechat.supervisor")
