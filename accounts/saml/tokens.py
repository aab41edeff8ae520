"""The saml2_info token the chatbox stores and sends back: signed by the server (unforgeable), bound to
one bot, expiring. A *pending* token names a login started for this browser; once the identity
provider has answered, it is exchanged for an *identity* token that carries who the visitor is."""

import secrets
import time
from dataclasses import dataclass, field

from django.core import signing

SALT = "accounts.saml.saml2_info"
LOGIN_SALT = "accounts.saml.login"
# How long a started login may take at the identity provider.
LOGIN_SECONDS = 600
# An identity lasts until the assertion's SessionNotOnOrAfter, at most this long.
SESSION_SECONDS = 8 * 3600
# Attributes carried in the token (the chatbox sends it back on every call): bounded.
MAX_ATTRIBUTE_CHARS = 4000


@dataclass(frozen=True)
class Saml2Info:
    bot: str
    login: str = ""  # a pending login's id
    name_id: str = ""
    attributes: dict = field(default_factory=dict)
    expires: int = 0  # epoch seconds; identity tokens only

    @property
    def authenticated(self) -> bool:
        return bool(self.name_id) and self.expires > time.time()


def new_login(bot_uuid: str) -> tuple[str, str]:
    """A new login for this bot: (pending token for the chatbox, signed login reference for the URL)."""
    login = secrets.token_urlsafe(18)
    token = signing.dumps({"b": bot_uuid, "l": login}, salt=SALT)
    reference = signing.dumps({"b": bot_uuid, "l": login}, salt=LOGIN_SALT)
    return token, reference


def identity_token(bot_uuid: str, name_id: str, attributes: dict, expires: int) -> str:
    return signing.dumps(
        {"b": bot_uuid, "n": name_id, "a": bounded(attributes), "e": int(expires)}, salt=SALT, compress=True
    )


def read(token: str, bot_uuid: str) -> Saml2Info | None:
    """The token's content if the server signed it for this bot and it has not expired, else None."""
    if not token or len(token) > 3 * MAX_ATTRIBUTE_CHARS:
        return None
    try:
        data = signing.loads(token, salt=SALT, max_age=SESSION_SECONDS)
    except signing.BadSignature:  # SignatureExpired is one
        return None
    if not isinstance(data, dict) or data.get("b") != bot_uuid:
        return None
    if "l" in data:
        return Saml2Info(bot=bot_uuid, login=str(data["l"]))
    info = Saml2Info(
        bot=bot_uuid, name_id=str(data.get("n", "")), attributes=data.get("a") or {}, expires=data.get("e", 0)
    )
    return info if info.authenticated else None


def read_login(reference: str) -> tuple[str, str] | None:
    """(bot UUID, login id) of a signed login reference still valid, else None."""
    try:
        data = signing.loads(reference or "", salt=LOGIN_SALT, max_age=LOGIN_SECONDS)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("b"), str) or not isinstance(data.get("l"), str):
        return None
    return data["b"], data["l"]


def bounded(attributes: dict) -> dict:
    """The attributes as {name: [text, …]}, dropping whole attributes past MAX_ATTRIBUTE_CHARS."""
    kept, size = {}, 0
    for name, values in sorted((attributes or {}).items()):
        values = [str(value) for value in (values if isinstance(values, (list, tuple)) else [values])]
        size += len(name) + sum(len(value) for value in values)
        if size > MAX_ATTRIBUTE_CHARS:
            break
        kept[str(name)] = values
    return kept
