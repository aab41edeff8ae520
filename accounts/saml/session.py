"""Who is the visitor of a chat call, from the saml2_info token it carries; and, when nobody is, the
answer that sends the chatbox to log in (client-contract.md §2.4)."""

import time
from urllib.parse import urlencode

from . import flow, sp
from .tokens import Saml2Info, identity_token, new_login, read


def identify(token: str, bot_uuid: str) -> tuple[Saml2Info | None, str]:
    """(the visitor, the token to hand back) or (None, "") when the token names nobody (yet). A pending
    token whose login the identity provider has answered is exchanged for an identity token."""
    info = read(token, bot_uuid)
    if info is None:
        return None, ""
    if not info.login:
        return info, token
    done = flow.completed(info.login)
    if not done or done.get("e", 0) <= time.time():
        return None, ""
    token = identity_token(bot_uuid, done["n"], done["a"], done["e"])
    return read(token, bot_uuid), token


def redirection(request, bot_uuid: str) -> dict:
    """SAML_redirection's values: a new pending token, and the login address (the chatbox appends
    `&RelayState=<its page>`, so the address already has a query string)."""
    pending, reference = new_login(bot_uuid)
    url = sp.base_url(request) + sp.LOGIN_PATH + "?" + urlencode({"login": reference})
    return {"auth": pending, "redirection_url": url}
