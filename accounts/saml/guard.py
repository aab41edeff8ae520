"""The chat calls' SAML hook: on a bot with chatbox.auth.saml.menu.enabled, a chat call whose
saml2_info names nobody is answered SAML_redirection (and does nothing else); one that names a
visitor goes on, and its answer's envelope carries `values.auth`, the token handed back. Off (the
default): nothing."""

import uuid

from bots.servlet.envelope import envelope
from bots.servlet.errors import Forbidden, ServletError

from .enabled import saml_enabled

FIELD = "saml2_info"


class SamlRedirection(ServletError):
    """Not an error for the chatbox: the answer that makes it go to the identity provider."""

    status, code = 200, "SAML_REDIRECTION"

    def __init__(self, values: dict):
        super().__init__("SAML login required.")
        self.values = values

    def response(self):
        return envelope("SAML_redirection", self.values)


class SamlGuard:
    """Mixed into the chat views (dialogs/api/views.py ChatView), before ServletView."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        bot_uuid = kwargs.get("bot_uuid")
        if bot_uuid is None or not saml_enabled(bot_uuid):
            return
        from .session import identify, redirection  # pysaml2 loads only where SAML is on

        bot_uuid = str(uuid.UUID(bot_uuid.strip()))
        visitor, token = identify(self.params(request).text(FIELD, max_length=20_000), bot_uuid)
        if visitor is None:
            raise SamlRedirection(redirection(request, bot_uuid))
        request.saml2_visitor, request.saml2_token = visitor, token

    def envelope(self, response_type: str, values: dict):
        """A chat answer's envelope; for a visitor logged in with SAML, values.auth hands the token back."""
        token = getattr(self.request, "saml2_token", None)
        return envelope(response_type, {**values, "auth": token} if token else values)


def check_frame(bot, params) -> None:
    """The same rule for a chatbox frame (websocket, chatHttp): it cannot follow a redirection, so a frame
    naming nobody on a bot with SAML on is refused; the chatbox logs in over REST first (saml2/status)."""
    if not saml_enabled(bot.uuid):
        return
    from .session import identify

    visitor, _token = identify(params.text(FIELD, max_length=20_000), str(bot.uuid))
    if visitor is None:
        raise Forbidden("This bot's chatbox needs a SAML login first (saml2/status).", code="SAML_LOGIN_REQUIRED")
