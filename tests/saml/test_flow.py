"""SAML2 for chatboxes end to end (client-contract.md §2.4): a talk on a bot with SAML on sends the
chatbox to log in; our login address sends the browser to the identity provider (pysaml2, started by
the test, over real HTTP); its signed Response posted to our ACS brings the visitor back to the
chatbox page; the token the chatbox stored now names the visitor, and the talk is answered."""

import base64
import json

import pytest

from dialogs.models import Interaction
from tests.conftest import decode
from tests.saml.conftest import PAGE, follow_to_idp, post_to_acs
from tests.saml.idp import ALICE
from tests.speed.test_talk_queries import RUNNING, statements_of

pytestmark = pytest.mark.django_db


def status(chatbox):
    response = chatbox.client.get(
        "/servlet/api/saml2/status", {"botUUID": chatbox.bot, "saml2_info": chatbox.saml2_info}
    )
    assert response.status_code == 200, response.content
    return response.json()


def userinfo(chatbox):
    response = chatbox.client.get(
        "/servlet/api/saml2/userinfo", {"botUUID": chatbox.bot, "saml2_info": chatbox.saml2_info}
    )
    assert response.status_code == 200, response.content
    return response.json()


def log_in(client, saml_chatbox) -> None:
    url = saml_chatbox.redirected(saml_chatbox.talk_body("Bonjour"))
    _started, (action, fields) = follow_to_idp(client, url)
    back = post_to_acs(client, action, fields)
    assert back.status_code == 302 and back["Location"] == PAGE


def test_the_whole_flow_from_a_talk_to_an_answer_with_values_auth(client, saml_chatbox, idp):
    # Before: status is the JSON *string* CV5 reads as "not connected", userinfo has no attribute.
    before = status(saml_chatbox)
    assert isinstance(before, str)
    parsed = json.loads(before)["values"]
    assert base64.b64decode(parsed["redirection_url"]).decode().startswith("http://testserver/servlet/saml2/login?")
    assert userinfo(saml_chatbox) == {"attribute": {}, "authenticated": False}

    # A talk without a token is not answered: SAML_redirection, and nothing is stored.
    stored = Interaction.objects.count()
    body = saml_chatbox.talk_body("Quels sont vos horaires d'ouverture ?")
    url = saml_chatbox.redirected(body)
    assert set(decode(body["values"])) == {"auth", "redirection_url"}
    assert "?" in url and Interaction.objects.count() == stored
    pending = saml_chatbox.saml2_info

    # The browser goes to our login address, then to the identity provider, which posts to our ACS.
    started, (action, fields) = follow_to_idp(client, url)
    assert started.status_code == 302 and started["Location"].startswith(idp.base + "/sso/redirect?SAMLRequest=")
    assert "Signature=" in started["Location"]  # our AuthnRequest is signed (the IdP checks it)
    assert action == "http://testserver/servlet/saml2/acs" and set(fields) == {"SAMLResponse", "RelayState"}
    assert PAGE not in fields["RelayState"]  # an opaque state goes to the IdP, the page stays with us
    back = post_to_acs(client, action, fields)
    assert back.status_code == 302 and back["Location"] == PAGE

    # Back on the page: status with the stored (pending) token says connected and renews the token.
    after = status(saml_chatbox)
    assert after["type"] == "saml2StatusResponse"
    values = decode(after["values"])
    assert values["authenticated"] is True and values["enabled"] is True and values["nameId"]
    identity = values["auth"]
    assert identity != pending and ":" in identity  # CV5's atob() throws on ':', so it stores it as is
    saml2_info = saml_chatbox.saml2_info = identity
    assert userinfo(saml_chatbox) == {"attribute": ALICE, "nameId": values["nameId"], "authenticated": True}

    # The talk is answered, with values.auth; the next one with the renewed token too.
    answer = saml_chatbox.talk_body("Quels sont vos horaires d'ouverture ?")
    assert answer["type"] == "talkResponse"
    talk = decode(answer["values"])
    assert talk["auth"] == saml2_info and talk["typeResponse"] == "DMUnderstoodQuestion"
    saml_chatbox.context_id = talk["contextId"]
    assert decode(saml_chatbox.talk_body("Merci")["values"])["contextId"] == talk["contextId"]
    assert Interaction.objects.count() == stored + 2


def test_the_pending_token_itself_is_exchanged_on_a_talk(client, saml_chatbox, idp):
    log_in(client, saml_chatbox)
    pending = saml_chatbox.saml2_info
    values = decode(saml_chatbox.talk_body("Bonjour")["values"])
    assert values["auth"] != pending and values["text"]


def test_other_chat_calls_are_guarded_too(client, saml_chatbox, idp):
    for path in ("chat/history", "chat/topknowledge", "chat/welcomecall", "chat/pushrules"):
        saml_chatbox.saml2_info = ""
        assert saml_chatbox.call(f"{path}/{saml_chatbox.bot}", {"contextUuid": "x"})["type"] == "SAML_redirection"
    log_in(client, saml_chatbox)
    top = saml_chatbox.call(f"chat/topknowledge/{saml_chatbox.bot}")
    assert top["type"] == "topKnowledgeResponse" and decode(top["values"])["auth"]


def test_a_token_of_another_bot_or_forged_names_nobody(client, saml_chatbox, idp, demo_bot):
    log_in(client, saml_chatbox)
    identity = decode(saml_chatbox.call(f"chat/topknowledge/{saml_chatbox.bot}")["values"])["auth"]
    payload, stamp, signature = identity.rsplit(":", 2)
    for forged in (f"{payload}:{stamp}:{signature[:-2]}AA", identity.replace(payload, payload[:-3] + "xyz"), "x" * 40):
        saml_chatbox.saml2_info = forged
        assert saml_chatbox.talk_body("Bonjour")["type"] == "SAML_redirection"
    # The token is bound to the bot it was given for.
    from accounts.saml.tokens import read

    assert read(identity, saml_chatbox.bot) is not None
    assert read(identity, "00000000-0000-4000-8000-000000000000") is None


def test_an_expired_identity_token_names_nobody(client, saml_chatbox, idp):
    from accounts.saml.tokens import identity_token

    saml_chatbox.saml2_info = identity_token(saml_chatbox.bot, "alice", ALICE, expires=1)
    assert saml_chatbox.talk_body("Bonjour")["type"] == "SAML_redirection"
    assert userinfo(saml_chatbox)["authenticated"] is False


def frame(bot: str, saml2_info: str | None) -> str:
    """A talk frame as CV5 sends it over the websocket (string parameters in base64)."""
    parameters = {"botId": base64.b64encode(bot.encode()).decode(), "userInput": base64.b64encode(b"Bonjour").decode()}
    if saml2_info is not None:
        parameters["saml2_info"] = saml2_info
    return json.dumps({"type": "talk", "parameters": parameters})


def test_frames_need_the_login_too(client, saml_chatbox, idp):
    """The websocket and /chatHttp cannot follow a redirection: a frame naming nobody is refused."""
    for token in (None, "", "forged:token:value"):
        refused = client.get("/chatHttp", {"data": frame(saml_chatbox.bot, token)})
        assert refused.status_code == 403 and refused.json()["code"] == "SAML_LOGIN_REQUIRED"
    log_in(client, saml_chatbox)
    identity = decode(saml_chatbox.call(f"chat/topknowledge/{saml_chatbox.bot}")["values"])["auth"]
    answered = client.get("/chatHttp", {"data": frame(saml_chatbox.bot, identity)})
    assert answered.status_code == 200 and answered.json()["type"] == "talkResponse"


def test_a_logged_in_talk_costs_what_a_talk_costs(client, saml_chatbox, idp):
    """The token is checked by its signature and the SAML flag is kept per process: a talk of a visitor
    logged in with SAML costs the statements of any talk (tests/speed), no more."""
    log_in(client, saml_chatbox)
    identity = decode(saml_chatbox.call(f"chat/topknowledge/{saml_chatbox.bot}")["values"])["auth"]
    saml_chatbox.talk("Comment faire un virement ?", saml2_info=identity)  # the dialog and its answer, read once
    assert statements_of(saml_chatbox, "Comment faire un virement ?", saml2_info=identity) == RUNNING
