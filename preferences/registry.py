"""The known preference keys: their type, where they apply, how a value is checked, and their effect.

A value for a known key is checked and normalised (booleans are stored as "true"/"false"); a value for
an unknown key is stored as the string given. Other apps read typed values through preferences.services.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from bots.servlet.errors import InvalidField

TRUE = {"true", "1", "yes", "on"}
# Transcripts e-mailed per bot and day (dialogs/transcript/mail_limits.py): past a few thousand a bot
# is a mailing service, which export by e-mail is not meant to be.
MAILS_PER_DAY_MAX = 10_000
FALSE = {"false", "0", "no", "off"}


# Checks of a kind of value that reads a higher app, registered by it at start-up (knowledge/apps.py: a matching
# group of the bot), so that preferences imports none of it.
KIND_CHECKS: dict[str, Callable[[str, object], str]] = {}


def register_check(kind: str, check: Callable[[str, object], str]) -> None:
    KIND_CHECKS[kind] = check


@dataclass(frozen=True)
class PreferenceKey:
    name: str
    kind: str  # boolean, string, integer, matching-group
    description: str
    scopes: tuple[str, ...] = ("bot",)
    default: str | None = None
    check: Callable[[str, object], str] | None = None

    def clean(self, value: str, owner) -> str:
        check = self.check or KIND_CHECKS.get(self.kind)
        return check(value, owner) if check else value

    def describe(self) -> dict:
        return {
            "name": self.name,
            "type": self.kind,
            "description": self.description,
            "scopes": list(self.scopes),
            "default": self.default,
        }


def boolean(value: str, owner=None) -> str:
    lowered = value.strip().lower()
    if lowered in TRUE:
        return "true"
    if lowered in FALSE:
        return "false"
    raise InvalidField("value", f"'{value[:40]}' is not a boolean (true or false)")


def service_name(value: str, owner=None) -> str:
    cleaned = " ".join(value.split())
    if not cleaned:
        raise InvalidField("value", "the service name cannot be empty")
    if len(cleaned) > 200:
        raise InvalidField("value", "the service name is at most 200 characters")
    return cleaned


def whole_days(value: str, owner=None) -> str:
    cleaned = value.strip()
    if not re.fullmatch(r"[0-9]{1,5}", cleaned) or int(cleaned) > 36_500:
        raise InvalidField("value", f"'{value[:40]}' is not a number of days from 0 to 36500")
    return str(int(cleaned))


def mails_per_day(value: str, owner=None) -> str:
    cleaned = value.strip()
    if not re.fullmatch(r"[0-9]{1,5}", cleaned) or int(cleaned) > MAILS_PER_DAY_MAX:
        raise InvalidField("value", f"'{value[:40]}' is not a number of e-mails from 0 to {MAILS_PER_DAY_MAX}")
    return str(int(cleaned))


def saml_idp_metadata(value: str, owner=None) -> str:
    from accounts.saml.sp import check_idp_metadata

    try:
        check_idp_metadata(value)
    except ValueError as error:
        raise InvalidField("value", f"not usable identity provider metadata: {error}") from None
    return value.strip()


def web_origins(value: str, owner=None) -> str:
    from urllib.parse import urlsplit

    origins = value.replace(",", " ").split()
    for origin in origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.query:
            raise InvalidField("value", f"'{origin[:60]}' is not an origin like https://www.example.com")
    return " ".join(origin.rstrip("/") for origin in origins)


KNOWN_KEYS: dict[str, PreferenceKey] = {
    key.name: key
    for key in [
        PreferenceKey(
            "chatbox.auth.saml.menu.enabled",
            "boolean",
            "Enables the SAML service of the chatbox.",
            default="false",
            check=boolean,
        ),
        PreferenceKey(
            "chatbox.auth.saml.idp.metadata",
            "string",
            "SAML: the identity provider's metadata XML (checked when set; else the server's SAML_IDP_METADATA_FILE).",
            check=saml_idp_metadata,
        ),
        PreferenceKey(
            "chatbox.auth.saml.origins",
            "string",
            "SAML: the origins of the pages the chatbox runs on, where a login may return (space-separated).",
            check=web_origins,
        ),
        PreferenceKey(
            "livechat.createmonitoreddialogs",
            "boolean",
            "Enables monitored conversations in live chat.",
            default="false",
            check=boolean,
        ),
        PreferenceKey(
            "bot.servicename",
            "string",
            "Service name written in the data-protection (GDPR) e-mail.",
            check=service_name,
        ),
        PreferenceKey(
            "bot.no.group.uuid",
            "matching-group",
            "UUID of the bot's matching group that means 'No' (named Non in the social category): lets the bot "
            "understand that the user does not want to leave a Slot knowledge item.",
            # checked by knowledge/preference_checks.py (KIND_CHECKS)
        ),
        PreferenceKey(
            "dialogs.mail.daily",
            "integer",
            "Conversations the bot may send by e-mail (#dydumailto#) per day, all visitors together "
            f"(0: export by e-mail off; at most {MAILS_PER_DAY_MAX}).",
            # A bot's visitors who ask for their conversation by e-mail are a few a day; 50 leaves room for
            # a busy day while a flood of new dialogs sends 50 mails at most before the next day.
            default="50",
            check=mails_per_day,
        ),
        PreferenceKey(
            "dialogs.retention.days",
            "integer",
            "Dialogs whose last activity is older than this many days are deleted by `manage.py purge_dialogs` "
            "(0: kept forever).",
            default="0",
            check=whole_days,
        ),
    ]
}


def known_key(name: str) -> PreferenceKey | None:
    return KNOWN_KEYS.get(name)


def keys_for(scope: str) -> list[PreferenceKey]:
    return [key for key in KNOWN_KEYS.values() if scope in key.scopes]
