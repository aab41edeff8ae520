"""What the service provider refuses: a tampered, expired or misaddressed assertion, a replayed or
unsolicited answer, a RelayState outside the allowed origins (no open redirect), a forged login. Each
refusal is a clear JSON error and leaves the visitor logged out."""

import base64
import calendar
import time

import pytest
from lxml import etree
from saml2.time_util import str_to_time

from tests.conftest import decode
from tests.saml.conftest import PAGE, follow_to_idp, post_to_acs

pytestmark = pytest.mark.django_db
SAML = "{urn:oasis:names:tc:SAML:2.0:assertion}"


def start_login(client, saml_chatbox, page: str = PAGE):
    url = saml_chatbox.redirected(saml_chatbox.talk_body("Bonjour"))
    return follow_to_idp(client, url, page)


def still_logged_out(saml_chatbox) -> bool:
    return saml_chatbox.talk_body("Bonjour")["type"] == "SAML_redirection"


def refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response.json()["code"] == code, response.json()


def test_a_tampered_assertion_is_refused(client, saml_chatbox, idp, caplog):
    _, (action, fields) = start_login(client, saml_chatbox)
    xml = base64.b64decode(fields["SAMLResponse"]).decode("utf-8")
    assert "alice@example.org" in xml
    fields["SAMLResponse"] = base64.b64encode(xml.replace("alice@example.org", "boss@example.org").encode()).decode()
    refused(post_to_acs(client, action, fields), 403, "SAML_RESPONSE_REFUSED")
    assert "Failed to verify signature" in caplog.text
    assert still_logged_out(saml_chatbox)


def test_an_expired_assertion_is_refused(client, saml_chatbox, idp, caplog):
    idp.lifetime_minutes = -10  # its validity ended ten minutes ago, beyond the accepted clock skew
    _, (action, fields) = start_login(client, saml_chatbox)
    conditions = etree.fromstring(base64.b64decode(fields["SAMLResponse"])).find(f".//{SAML}Conditions")
    assert calendar.timegm(str_to_time(conditions.get("NotOnOrAfter"))) < time.time() - 9 * 60
    refused(post_to_acs(client, action, fields), 403, "SAML_RESPONSE_REFUSED")
    assert "Condition not OK" in caplog.text
    assert still_logged_out(saml_chatbox)


def test_a_response_for_another_service_provider_is_refused(client, saml_chatbox, idp, caplog):
    idp.audience = "https://other-sp.example/servlet/saml2/metadata"
    _, (action, fields) = start_login(client, saml_chatbox)
    xml = base64.b64decode(fields["SAMLResponse"]).decode("utf-8")
    assert ":Audience>https://other-sp.example/servlet/saml2/metadata</" in xml
    refused(post_to_acs(client, action, fields), 403, "SAML_RESPONSE_REFUSED")
    assert "AudienceRestrictions conditions not satisfied" in caplog.text
    assert still_logged_out(saml_chatbox)


def test_an_answer_is_used_once_and_an_unsolicited_one_is_refused(client, saml_chatbox, idp):
    _, (action, fields) = start_login(client, saml_chatbox)
    assert post_to_acs(client, action, fields).status_code == 302
    refused(post_to_acs(client, action, fields), 400, "UNKNOWN_LOGIN")
    refused(post_to_acs(client, action, {**fields, "RelayState": "made-up"}), 400, "UNKNOWN_LOGIN")
    # Control characters or a huge value name no login either (and never reach the cache as a key).
    for hostile in ("\x0c", "Ü\x0e" * 20, "a" * 5000, fields["RelayState"] + ":x"):
        refused(post_to_acs(client, action, {**fields, "RelayState": hostile}), 400, "UNKNOWN_LOGIN")
    refused(post_to_acs(client, action, {"RelayState": fields["RelayState"]}), 400, "MISSING_FIELD")


@pytest.mark.parametrize(
    "page",
    [
        "https://evil.example/phish",
        "https://shop.example.evil.example/",
        "https://shop.example@evil.example/",
        "//evil.example/x",
        "javascript:alert(1)//https://shop.example/",
        "https:\\\\evil.example/",
        "",
    ],
)
def test_a_relay_state_outside_the_allowed_origins_is_refused(client, saml_chatbox, idp, page):
    started, form = start_login(client, saml_chatbox, page)
    assert form is None and idp.logins == 0
    assert started.status_code == 400, started.content
    assert started.json()["field"] == "RelayState"


def test_the_servers_own_origin_is_allowed(client, saml_chatbox, idp):
    started, form = start_login(client, saml_chatbox, "http://testserver/demo/")
    assert started.status_code == 302 and form is not None
    assert post_to_acs(client, *form)["Location"] == "http://testserver/demo/"


def test_a_forged_or_stale_login_reference_is_refused(client, saml_chatbox, idp, demo_bot):
    refused(client.get("/servlet/saml2/login", {"login": "forged", "RelayState": PAGE}), 400, "INVALID_FIELD")
    refused(client.get("/servlet/saml2/login", {"RelayState": PAGE}), 400, "MISSING_FIELD")
    url = saml_chatbox.redirected(saml_chatbox.talk_body("Bonjour"))
    from preferences.services import Owner, set_preference

    set_preference(Owner(bot=demo_bot), "chatbox.auth.saml.menu.enabled", "false")
    started, _form = follow_to_idp(client, url)
    refused(started, 403, "SAML_DISABLED")


def test_without_identity_provider_metadata_no_login_starts(client, saml_chatbox, idp, demo_bot):
    from preferences.services import Owner, delete_preference

    url = saml_chatbox.redirected(saml_chatbox.talk_body("Bonjour"))
    delete_preference(Owner(bot=demo_bot), "chatbox.auth.saml.idp.metadata")
    started, _form = follow_to_idp(client, url)
    refused(started, 403, "SAML_NOT_CONFIGURED")


def test_status_and_userinfo_name_their_bot(client):
    refused(client.get("/servlet/api/saml2/status"), 400, "MISSING_FIELD")
    refused(client.get("/servlet/api/saml2/userinfo", {"botUUID": "nope"}), 404, "UNKNOWN_BOT")


def test_decode_of_the_redirection_is_what_cv5_follows(client, saml_chatbox, idp):
    body = saml_chatbox.talk_body("Bonjour")
    values = decode(body["values"])
    # CV5: atob(values.auth) must not throw (else it follows the raw base64), then atob(auth) must throw
    # (':' is outside base64's alphabet) so that the token is stored as it is.
    assert ":" in values["auth"] and values["redirection_url"].count("?") == 1


def test_an_answer_to_another_login_is_refused(client, saml_chatbox, idp, caplog):
    """The answer to login A posted with login B's RelayState: its InResponseTo is not B's request."""
    _, (action, first) = start_login(client, saml_chatbox)
    _, (_, second) = start_login(client, saml_chatbox)
    refused(post_to_acs(client, action, {**first, "RelayState": second["RelayState"]}), 403, "SAML_RESPONSE_REFUSED")
    assert "Unsolicited response" in caplog.text
    assert still_logged_out(saml_chatbox)


def test_the_servers_identity_provider_file_serves_bots_without_their_own(
    client, saml_chatbox, idp, demo_bot, settings, tmp_path
):
    """Metadata too large for a preference (4,000 characters) goes in SAML_IDP_METADATA_FILE."""
    from preferences.services import Owner, delete_preference

    (tmp_path / "idp.xml").write_text(idp.metadata())
    settings.SAML_IDP_METADATA_FILE = str(tmp_path / "idp.xml")
    delete_preference(Owner(bot=demo_bot), "chatbox.auth.saml.idp.metadata")
    _, (action, fields) = start_login(client, saml_chatbox)
    assert post_to_acs(client, action, fields)["Location"] == PAGE
    assert saml_chatbox.talk_body("Bonjour")["type"] == "talkResponse"
