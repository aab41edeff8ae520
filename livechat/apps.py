"""The livechat app: operators and their availability, the waiting queue, the websockets of the
chatbox and of the operators' console, and the Operators availability and Callback servlet groups."""

from django.apps import AppConfig


class LivechatConfig(AppConfig):
    name = "livechat"
    verbose_name = "Live chat"

    def ready(self):
        from bots.status import checks, volumes
        from dialogs import handover

        from . import status
        from .handover import LivechatHandover

        handover.register(LivechatHandover())
        from .uploads import cleanup  # noqa: F401  (a visitor's file is deleted with its row)

        # The server status: the transport (the channel layer) and the queue, operators and dialogs.
        checks.register("livechat", status.transport)
        checks.register("livechat", status.queue, needs=["database"])
        volumes.register("connectedOperators", status.connected_operators)
        volumes.register("currentLivechatDialogs", status.current_livechat_dialogs)
