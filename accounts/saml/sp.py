"""The service provider as pysaml2 sees it: one SP for the whole server (entity id and ACS under
/servlet/saml2/), trusting, for each bot, the identity provider named by the bot's preference
chatbox.auth.saml.idp.metadata (else the server's SAML_IDP_METADATA_FILE)."""

import hashlib
import logging
import shutil
import threading
from pathlib import Path

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.client import Saml2Client
from saml2.config import SPConfig
from saml2.metadata import create_metadata_string

from bots.servlet.errors import ServletError

from . import preference_source
from .enabled import IDP_METADATA
from .keys import key_pair, setting

METADATA_PATH = "/servlet/saml2/metadata"
ACS_PATH = "/servlet/saml2/acs"
LOGIN_PATH = "/servlet/saml2/login"
# Clocks of the identity provider and this server may differ by this much.
CLOCK_SKEW_SECONDS = 60

# pysaml2 logs each visitor's NameID and attributes at INFO, xmlschema each schema it loads: personal
# data and noise in a server's log. Their warnings and errors still show.
logging.getLogger("saml2").setLevel(logging.WARNING)
logging.getLogger("xmlschema").setLevel(logging.WARNING)

_clients: dict[tuple, Saml2Client] = {}
_lock = threading.Lock()


def base_url(request) -> str:
    """The server's public address: SAML_SP_BASE_URL if set (behind a proxy), else the request's."""
    return (setting("SAML_SP_BASE_URL") or request.build_absolute_uri("/")).rstrip("/")


def idp_metadata(bot) -> str:
    """The identity provider's metadata XML for this bot ("" when none is configured)."""
    value = preference_source.value(IDP_METADATA, bot=bot)
    if value and value.strip():
        return value.strip()
    path = setting("SAML_IDP_METADATA_FILE")
    return Path(path).read_text(encoding="utf-8").strip() if path else ""


class SamlUnavailable(ServletError):
    status, code = 503, "SAML_UNAVAILABLE"


def xmlsec_binary() -> str:
    """Debian's xmlsec1, which pysaml2 signs and checks signatures with (`make saml-tools` installs it)."""
    found = shutil.which("xmlsec1")
    if found is None:
        raise SamlUnavailable("SAML is unavailable on this server: xmlsec1 is not installed (make saml-tools).")
    return found


def config(base: str, metadata: str = "") -> SPConfig:
    binary = xmlsec_binary()
    key_file, cert_file = key_pair()
    sp = SPConfig()
    sp.load(
        {
            "entityid": base + METADATA_PATH,
            "xmlsec_binary": binary,
            "key_file": key_file,
            "cert_file": cert_file,
            "metadata": {"inline": [metadata]} if metadata else {},
            "accepted_time_diff": CLOCK_SKEW_SECONDS,
            "service": {
                "sp": {
                    "name": "Bot platform chatbox",
                    "endpoints": {"assertion_consumer_service": [(base + ACS_PATH, BINDING_HTTP_POST)]},
                    # Only answers to a login this server started (InResponseTo), never IdP-initiated ones.
                    "allow_unsolicited": False,
                    "authn_requests_signed": True,
                    "want_assertions_signed": True,
                    "want_response_signed": False,
                    "name_id_format_allow_create": True,
                }
            },
        }
    )
    return sp


def client(base: str, metadata: str) -> Saml2Client:
    """A client for this base URL and identity provider, built once per process (parsing metadata costs)."""
    key = (base, hashlib.sha256(metadata.encode("utf-8")).hexdigest(), *key_pair())
    found = _clients.get(key)
    if found is None:
        found = Saml2Client(config=config(base, metadata))
        with _lock:
            _clients[key] = found
    return found


def idp_entity_id(saml_client: Saml2Client) -> str:
    """The one identity provider of this client's metadata that has a single sign-on service."""
    for entity_id in saml_client.metadata.identity_providers():
        if saml_client.metadata.single_sign_on_service(entity_id, BINDING_HTTP_REDIRECT):
            return entity_id
    raise ValueError("no identity provider with an HTTP-Redirect single sign-on service")


def metadata_xml(base: str) -> str:
    return create_metadata_string(None, config(base), valid=24 * 365).decode("utf-8")


def check_idp_metadata(xml: str) -> str:
    """The metadata if it names an identity provider this server can send visitors to, else ValueError."""
    xml = xml.strip()
    try:
        entity = idp_entity_id(Saml2Client(config=config("https://check.invalid", xml)))
    except (ValueError, SamlUnavailable):
        raise
    except Exception as error:  # pysaml2 raises many kinds for bad XML
        raise ValueError(f"not readable SAML metadata ({type(error).__name__})") from None
    return entity
