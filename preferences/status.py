"""What the preferences app reports in the server status: SAML for chatboxes (`sso`)."""

import shutil

from bots.status.checks import OK, WARNING, Result

from .models import BotPreference


def sso() -> Result:
    """SAML for chatboxes: enabled per bot by chatbox.auth.saml.menu.enabled; this server is the service
    provider (accounts/saml). A bot with SAML on and no identity provider to send visitors to (neither
    chatbox.auth.saml.idp.metadata nor SAML_IDP_METADATA_FILE) is a Warning; otherwise Ok."""
    from accounts.saml.keys import setting

    enabled = set(
        BotPreference.objects.filter(name="chatbox.auth.saml.menu.enabled", value="true").values_list("bot", flat=True)
    )
    customs = {"samlEnabledBots": len(enabled), "serviceProvider": True}
    if enabled and shutil.which("xmlsec1") is None:
        return Result(WARNING, customs, reason="SAML is enabled on a bot but xmlsec1 is not installed")
    if enabled and not setting("SAML_IDP_METADATA_FILE"):
        configured = BotPreference.objects.filter(bot__in=enabled, name="chatbox.auth.saml.idp.metadata").count()
        if configured < len(enabled):
            customs["botsWithoutIdentityProvider"] = len(enabled) - configured
            reason = "SAML is enabled on a bot that has no identity provider metadata"
            return Result(WARNING, customs, reason=reason)
    return Result(OK, customs)
