"""What a talk asks, read once from a REST form or a websocket frame (the one TalkRequest both feed)."""

import html
import json
from dataclasses import dataclass, field

from django.conf import settings

from bots.servlet.envelope import b64_decode
from bots.servlet.params import CONTEXT_ID, ServletParams


@dataclass
class TalkRequest:
    user_input: str
    context_id: str = ""
    language: str = ""
    space: str = ""
    client_id: str = ""
    browser: str = ""
    os: str = ""
    user_url: str = ""
    already_came: bool = False
    qualification_mode: bool = False
    do_not_register: bool = False
    language_detection: bool = True
    extra: dict = field(default_factory=dict)
    variables: dict = field(default_factory=dict)
    solution_used: str = ""
    context_type: str = ""
    mode: str = ""
    # Live chat: the operators' competency this visitor needs (else the item's, else any operator).
    competency: str = ""
    # The input was longer than the limit and was cut (only its first 600 characters are used).
    too_long: bool = False
    # The visitor's peer address as the server saw it (never a header the client wrote): export by e-mail
    # counts it (dialogs/transcript/mail_limits.py). Set by the transport, not read from the form.
    client_address: str = ""
    # The server's address as the chatbox reached it (scheme, host, port), set by the transport: answers
    # link pages of this server with it (live chat's callback offer).
    server_url: str = ""

    @property
    def origin(self) -> str:
        return str(self.extra.get("type", ""))[:60]


def clean_user_input(raw: str | None) -> tuple[str, bool]:
    """The chatbox sends typed text HTML-escaped (&lt; &amp;); the engine uses its first 600 characters."""
    text = html.unescape(raw or "")
    limit = settings.USER_INPUT_MAX_CHARS
    return text[:limit], len(text) > limit


def talk_request_from_params(
    params: ServletParams, context_id: str | None = None, client_address: str = ""
) -> TalkRequest:
    user_input, too_long = clean_user_input(params.raw("userInput"))
    if params.raw("disableLanguageDetection") is not None:
        detection = not params.boolean("disableLanguageDetection")
    else:
        detection = params.boolean("enableLanguageDetection", "enableLanguageDectection", default=True)
    return TalkRequest(
        user_input=user_input,
        too_long=too_long,
        context_id=context_id or params.text(*CONTEXT_ID),
        language=params.text("language", max_length=20),
        space=params.text("space", max_length=100),
        client_id=params.text("clientId", max_length=100),
        browser=params.text("browser", max_length=200),
        os=params.text("os", max_length=200),
        user_url=params.text("userUrl", max_length=1000),
        already_came=params.boolean("alreadyCame"),
        qualification_mode=params.boolean("qualificationMode"),
        do_not_register=params.boolean("doNotRegisterInteraction"),
        language_detection=detection,
        extra=params.json_object("extraParameters", enum_key="type"),
        variables=_string_values(params.json_object("variables")),
        solution_used=params.text("solutionUsed", max_length=20),
        context_type=params.text("contextType", max_length=20),
        mode=b64_decode(params.text("mode", max_length=100)),
        competency=params.text("competency", max_length=100).strip(),
        client_address=client_address,
    )


def _string_values(variables: dict) -> dict[str, str]:
    return {str(key)[:100]: "" if value is None else str(value)[:1000] for key, value in variables.items()}


def params_from_frame(parameters: dict) -> ServletParams:
    """A websocket frame's parameters as form fields: strings arrive base64 (client-contract.md §4.2),
    booleans and numbers raw, extraParameters as an object of btoa'd values."""
    fields: dict[str, str] = {}
    for key, value in (parameters or {}).items():
        if isinstance(value, bool):
            fields[key] = "true" if value else "false"
        elif isinstance(value, str):
            fields[key] = b64_decode(value)
        elif isinstance(value, dict):
            decoded = {name: b64_decode(item) if isinstance(item, str) else item for name, item in value.items()}
            fields[key] = json.dumps(decoded)
        elif value is None:
            fields[key] = "null"
        else:
            fields[key] = str(value)
    return ServletParams(fields)
