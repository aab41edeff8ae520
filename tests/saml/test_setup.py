"""The service provider's setup: its metadata, its key pair (environment, else generated under data/),
the bot preferences that configure SAML (checked when set), and SAML off leaving chat calls as they were."""

import os
import stat
from pathlib import Path

import pytest
from lxml import etree

from accounts.saml import keys, sp
from tests.conftest import decode

pytestmark = pytest.mark.django_db
MD = "{urn:oasis:names:tc:SAML:2.0:metadata}"


def test_metadata_names_the_entity_acs_and_signing_certificate(client, sp_keys):
    response = client.get("/servlet/saml2/metadata")
    assert response.status_code == 200 and response["Content-Type"] == "application/samlmetadata+xml"
    root = etree.fromstring(response.content)
    assert root.get("entityID") == "http://testserver/servlet/saml2/metadata"
    descriptor = root.find(f"{MD}SPSSODescriptor")
    assert descriptor.get("AuthnRequestsSigned") == "true" and descriptor.get("WantAssertionsSigned") == "true"
    acs = descriptor.find(f"{MD}AssertionConsumerService")
    assert acs.get("Location") == "http://testserver/servlet/saml2/acs"
    assert acs.get("Binding") == "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
    certificate = "".join(descriptor.find(".//{http://www.w3.org/2000/09/xmldsig#}X509Certificate").text.split())
    pem = "".join(sp_keys[1].read_text().splitlines()[1:-1])
    assert certificate == pem


def test_a_public_base_url_from_the_environment_names_the_entity(client, sp_keys, settings):
    settings.SAML_SP_BASE_URL = "https://bots.example.com/"
    root = etree.fromstring(client.get("/servlet/saml2/metadata").content)
    assert root.get("entityID") == "https://bots.example.com/servlet/saml2/metadata"


def test_without_environment_a_key_pair_is_generated_once_under_data(settings, tmp_path, monkeypatch):
    settings.DATA_DIR = tmp_path
    settings.SAML_SP_KEY_FILE = settings.SAML_SP_CERT_FILE = ""
    monkeypatch.delenv("SAML_SP_KEY_FILE", raising=False)
    key, cert = keys.key_pair()
    assert key == str(tmp_path / "saml" / "sp-key.pem") and "PRIVATE KEY" in Path(key).read_text()
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    assert keys.key_pair() == (key, cert) and Path(cert).read_text().startswith("-----BEGIN CERTIFICATE")


def test_identity_provider_metadata_is_checked_when_set(client, demo_bot, idp):
    from bots.servlet.errors import InvalidField
    from preferences.services import Owner, set_preference

    owner = Owner(bot=demo_bot)
    with pytest.raises(InvalidField):
        set_preference(owner, "chatbox.auth.saml.idp.metadata", "<not-metadata/>")
    with pytest.raises(InvalidField):
        set_preference(owner, "chatbox.auth.saml.idp.metadata", client.get("/servlet/saml2/metadata").content.decode())
    assert sp.check_idp_metadata(idp.metadata()) == idp.base + "/idp"
    for bad in ("shop.example", "https://shop.example/page", "ftp://shop.example"):
        with pytest.raises(InvalidField):
            set_preference(owner, "chatbox.auth.saml.origins", bad)
    preference, _ = set_preference(owner, "chatbox.auth.saml.origins", "https://a.example/, http://b.example:8080")
    assert preference.value == "https://a.example http://b.example:8080"


def test_saml_off_changes_nothing(chatbox, client, sp_keys):
    values = chatbox.talk("Quels sont vos horaires d'ouverture ?", saml2_info="anything")
    assert "auth" not in values and values["typeResponse"] == "DMUnderstoodQuestion"
    status = client.get("/servlet/api/saml2/status", {"botUUID": chatbox.bot})
    assert decode(status.json()["values"]) == {"enabled": False, "authenticated": False}
    assert client.get("/servlet/api/saml2/userinfo", {"botUUID": chatbox.bot}).json()["attribute"] == {}


def test_the_server_status_counts_saml_bots_and_is_ok_once_their_identity_provider_is_known(saml_bot):
    from bots.status.checks import OK
    from preferences.status import sso

    result = sso()
    assert result.status == OK, result
    assert result.customs == {"samlEnabledBots": 1, "serviceProvider": True}


def test_without_xmlsec1_saml_says_it_is_unavailable_instead_of_failing(client, saml_bot, monkeypatch):
    """pysaml2 signs and checks signatures with Debian's xmlsec1 (`make saml-tools`): a server without it
    answers 503 on the SAML pages and its status warns, never a 500."""
    from bots.status.checks import WARNING
    from preferences.status import sso

    monkeypatch.setenv("PATH", "/nonexistent")
    response = client.get("/servlet/saml2/metadata")
    assert response.status_code == 503 and response.json()["code"] == "SAML_UNAVAILABLE"
    result = sso()
    assert result.status == WARNING and "xmlsec1" in result.reason


def test_the_flag_is_read_once_per_process_and_a_change_made_here_counts_at_once(demo_bot):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from accounts.saml.enabled import saml_enabled
    from preferences.services import Owner, delete_preference, set_preference

    bot = str(demo_bot.uuid)
    with CaptureQueriesContext(connection) as read:
        assert saml_enabled(bot) is False and saml_enabled(bot.upper()) is False
    assert len(read) == 1
    set_preference(Owner(bot=demo_bot), "chatbox.auth.saml.menu.enabled", "true")
    assert saml_enabled(bot) is True
    delete_preference(Owner(bot=demo_bot), "chatbox.auth.saml.menu.enabled")
    assert saml_enabled(bot) is False
    assert saml_enabled("not-a-uuid") is False
