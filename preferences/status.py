"""What the preferences app reports in the server status: SAML for chatboxes (`sso`)."""

from bots.status.checks import OK, WARNING, Result

from .models import BotPreference


def sso() -> Result:
    """SAML for chatboxes: enabled per bot by chatbox.auth.saml.menu.enabled. This server has no SAML
    service provider yet, so a bot that enables it is a Warning; none enabled is Ok."""
    enabled = BotPreference.objects.filter(name="chatbox.auth.saml.menu.enabled", value="true").count()
    if enabled:
        reason = "SAML is enabled on a bot but this server has no SAML service provider"
        return Result(WARNING, {"samlEnabledBots": enabled, "serviceProvider": False}, reason=reason)
    return Result(OK, {"samlEnabledBots": 0, "serviceProvider": False})
