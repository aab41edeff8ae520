"""Fixtures of the SAML tests: the service provider's key pair (as the environment would name it), an
identity provider started by the test (tests/saml/idp.py) and the demo bot set up to use it."""

import re
import urllib.error
import urllib.request
from html import unescape
from urllib.parse import urlsplit

import pytest

from accounts.saml import enabled, sp
from accounts.saml.keys import generate
from preferences.services import Owner, set_preference
from tests.conftest import Chatbox, decode
from tests.saml.idp import IdentityProvider

SHOP = "https://shop.example"
PAGE = SHOP + "/account/help?tab=chat"
OTHER_SP = "https://other-sp.example"


@pytest.fixture(autouse=True)
def _fresh_flags():
    """The per-process SAML flag is forgotten around each test: a test's rolled-back preference must
    not outlive it."""
    enabled.forget()
    yield
    enabled.forget()


@pytest.fixture
def sp_keys(settings, tmp_path):
    key, cert = generate(tmp_path / "sp", "test-service-provider")
    settings.SAML_SP_KEY_FILE, settings.SAML_SP_CERT_FILE = str(key), str(cert)
    return key, cert


@pytest.fixture
def idp(client, sp_keys, tmp_path):
    metadata = client.get("/servlet/saml2/metadata")
    assert metadata.status_code == 200, metadata.content
    # Another service provider the identity provider also serves (answers meant for it must not count here).
    other = sp.metadata_xml(OTHER_SP)
    with IdentityProvider(tmp_path / "idp", metadata.content.decode("utf-8"), other) as provider:
        yield provider


@pytest.fixture
def saml_bot(demo_bot, idp):
    owner = Owner(bot=demo_bot)
    set_preference(owner, "chatbox.auth.saml.idp.metadata", idp.metadata())
    set_preference(owner, "chatbox.auth.saml.origins", SHOP)
    set_preference(owner, "chatbox.auth.saml.menu.enabled", "true")
    return demo_bot


class SamlChatbox(Chatbox):
    """The CV5 chatbox with `saml.enable`: saml2_info on every call, the token renewed from values.auth,
    SAML_redirection followed (client-contract.md §2.4)."""

    saml2_info = ""

    def call(self, path: str, data: dict | None = None):
        response = self.post(path, {**(data or {}), "saml2_info": self.saml2_info})
        assert response.status_code == 200, response.content
        body = response.json()
        if body.get("type") != "SAML_redirection" and body.get("values", {}).get("auth"):
            self.saml2_info = decode(body["values"]["auth"])
        return body

    def redirected(self, body: dict) -> str:
        """Store the token and give the address the browser goes to (the chatbox appends RelayState)."""
        assert body["type"] == "SAML_redirection", body
        values = decode(body["values"])
        self.saml2_info = values["auth"]
        return values["redirection_url"]

    def talk_body(self, text: str) -> dict:
        path = f"chat/talk/{self.bot}" + (f"/{self.context_id}" if self.context_id else "")
        return self.call(path, {"userInput": text, "language": "fr", "space": "Defaut"})


@pytest.fixture
def saml_chatbox(client, saml_bot):
    return SamlChatbox(client, str(saml_bot.uuid))


def follow_to_idp(client, redirection_url: str, page: str = PAGE):
    """The browser leg: our login address → 302 to the identity provider → (real HTTP) its form."""
    parts = urlsplit(redirection_url)
    started = client.get(f"{parts.path}?{parts.query}&RelayState={page}")
    if started.status_code != 302:
        return started, None
    try:
        with urllib.request.urlopen(started["Location"], timeout=30) as answer:
            html = answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        raise AssertionError(error.read().decode("utf-8", "replace")) from None
    fields = {name: unescape(value) for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', html)}
    action = unescape(re.search(r'action="([^"]+)"', html).group(1))
    return started, (action, fields)


def post_to_acs(client, action: str, fields: dict):
    return client.post(urlsplit(action).path, fields)
