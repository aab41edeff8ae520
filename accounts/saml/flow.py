"""The login itself: send the visitor to the bot's identity provider, then check what it posts back to
the assertion consumer service and remember the identity for the token that started the login.

The state between the two legs lives in the shared cache (several server processes may serve them),
keyed by an opaque RelayState given to the identity provider; the chatbox page the visitor came from
is kept there too, and is only ever an address of an allowed origin (no open redirect)."""

import calendar
import logging
import re
import secrets
import time
from urllib.parse import urlsplit

from django.conf import settings
from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.time_util import str_to_time

from bots.servlet.errors import BadRequest, Forbidden, InvalidField, MissingField, ServletError
from bots.servlet.views import get_bot
from bots.status.services import FallbackCache

from . import preference_source, sp
from .enabled import ALLOWED_ORIGINS, saml_enabled
from .tokens import LOGIN_SECONDS, SESSION_SECONDS, bounded, read_login

log = logging.getLogger(__name__)
cache = FallbackCache("the SAML2 logins")
MAX_RELAY_STATE = 2000
# The RelayState start() sends: secrets.token_urlsafe(24), 32 characters.
RELAY_STATE = re.compile(r"[A-Za-z0-9_-]{16,64}")


class LoginRefused(ServletError):
    status, code = 403, "SAML_RESPONSE_REFUSED"


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def allowed_origins(bot, base: str) -> set[str]:
    """This server, the CORS origins of the settings, and the bot's chatbox.auth.saml.origins."""
    listed = preference_source.value(ALLOWED_ORIGINS, bot=bot)
    origins = {origin_of(base), *(origin.rstrip("/").lower() for origin in settings.CORS_ALLOWED_ORIGINS)}
    origins.update(origin.rstrip("/").lower() for origin in (listed or "").replace(",", " ").split())
    return origins


def safe_return(url: str, allowed: set[str]) -> str:
    """The page to go back to, if it is an http(s) address of an allowed origin."""
    url = (url or "").strip()
    if not url:
        raise MissingField("RelayState")
    parts = urlsplit(url)
    # A backslash or a control character may be read as another host by a browser.
    if (
        len(url) > MAX_RELAY_STATE
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or "\\" in url
        or any(ord(char) < 32 for char in url)
        or origin_of(url) not in allowed
    ):
        raise InvalidField("RelayState", "not a page of an origin allowed for this bot's chatbox")
    return url


def start(request, reference: str, relay_state: str) -> str:
    """The identity provider's login address for a login started by a chat call (its signed reference)."""
    found = read_login(reference)
    if found is None:
        raise InvalidField("login", "unknown or expired login, start again from the chatbox")
    bot_uuid, login = found
    bot = get_bot(bot_uuid)
    if not saml_enabled(bot.uuid):
        raise Forbidden("SAML is not enabled for this bot.", code="SAML_DISABLED")
    base = sp.base_url(request)
    back = safe_return(relay_state, allowed_origins(bot, base))
    metadata = sp.idp_metadata(bot)
    if not metadata:
        raise Forbidden("This bot's identity provider is not configured.", code="SAML_NOT_CONFIGURED")
    client = sp.client(base, metadata)
    state = secrets.token_urlsafe(24)
    request_id, info = client.prepare_for_authenticate(
        entityid=sp.idp_entity_id(client), relay_state=state, binding=BINDING_HTTP_REDIRECT
    )
    cache.set(
        f"saml2:request:{state}",
        {"bot": str(bot.uuid), "login": login, "back": back, "request": request_id, "base": base},
        LOGIN_SECONDS,
    )
    return dict(info["headers"])["Location"]


def finish(saml_response: str, state: str) -> str:
    """Check the identity provider's answer; the login's token now names the visitor. Returns the page to
    go back to. Each login is answered once: a replayed or unknown RelayState is refused."""
    if not saml_response:
        raise MissingField("SAMLResponse")
    if not state:
        raise MissingField("RelayState")
    # A RelayState of ours is URL-safe base64; anything else names no login and never becomes a cache key.
    key = f"saml2:request:{state}" if RELAY_STATE.fullmatch(state) else ""
    pending = cache.get(key) if key else None
    if not pending:
        raise BadRequest("No login is waiting for this answer (unknown, used or expired).", code="UNKNOWN_LOGIN")
    cache.delete(key)
    bot = get_bot(pending["bot"])
    client = sp.client(pending["base"], sp.idp_metadata(bot))
    try:
        response = client.parse_authn_request_response(
            saml_response, BINDING_HTTP_POST, outstanding={pending["request"]: pending["back"]}
        )
    except Exception as error:  # pysaml2 refuses with many exception kinds: each is a refusal here
        log.warning("SAML2: bot %s: the identity provider's answer is refused: %r", bot.uuid, error)
        raise LoginRefused(f"The identity provider's answer is refused ({type(error).__name__}).") from None
    if response is None or response.in_response_to != pending["request"] or response.name_id is None:
        raise LoginRefused("The identity provider's answer is refused.")
    # The token that started the login names the visitor for as long as the session lasts.
    end = session_end(response)
    identity = {"n": response.name_id.text, "a": bounded(response.get_identity()), "e": end}
    cache.set(f"saml2:login:{pending['login']}", identity, max(1, end - int(time.time())))
    return pending["back"]


def session_end(response) -> int:
    """The assertion's SessionNotOnOrAfter, at most SESSION_SECONDS from now."""
    latest = int(time.time()) + SESSION_SECONDS
    for statement in response.assertion.authn_statement or []:
        if statement.session_not_on_or_after:
            latest = min(latest, calendar.timegm(str_to_time(statement.session_not_on_or_after)))
    return latest


def completed(login: str) -> dict | None:
    """The identity the identity provider gave for this login, once it has answered."""
    return cache.get(f"saml2:login:{login}") if login else None
