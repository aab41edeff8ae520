"""The API console's ready-to-run examples, per call: the values "Try it out" starts from, each one
answered with success on a fresh `make run` (its demo bot and its administrator, `admin`), except the few in
INTENDED, whose refusal the console announces: they need what only a person or an earlier call has.
tests/fuzz/test_examples.py sends every one of them in process, tests/fuzz/test_examples_live.py against
daphne serving a fresh installation."""

import json

from bots.models import DEMO_BOT_UUID

DEMO = DEMO_BOT_UUID
# A well-formed id that names nothing: the calls that need a talk's context or a stored object's id answer
# it as unknown (a talk with it starts a new context), never "Required field is not provided".
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
# Path fields with the same example wherever they appear (console.front_matter), besides bot_uuid.
PATH_EXAMPLES = {"login": "admin", "exclude_gallery": True, "context_id": UNKNOWN_ID, "survey_id": UNKNOWN_ID}


def chat(path: str, fields: dict) -> dict:
    """A chat call's example for its GET (query string) and POST (form) alike."""
    return {f"GET {path}": {"query": fields}, f"POST {path}": {"body": fields}}


# "METHOD path" → the example's path fields, query fields and body (a form: the same fields in JSON).
# Every botUUID path field has the demo bot's UUID as its example already (console.front_matter). The test
# sends them in this order: the preference set by the PUT is read by the GET after it.
TALK = {"userInput": "Combien coûte le compte ?", "language": "fr", "space": "Defaut"}
TALK_FRAME = {
    "botId": "ZDNiMGQzYjAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAx",  # base64 of the demo bot's UUID
    "userInput": "Qm9uam91cg==",  # Bonjour
    "language": "ZnI=",  # fr
    "qualificationMode": True,
}
EXAMPLES = {
    "POST /servlet/api/chat/talk/{bot_uuid}/": {"body": TALK},
    "GET /servlet/api/chat/talk/{bot_uuid}/": {"query": TALK},
    "POST /servlet/api/chat/context/{bot_uuid}/": {"body": {"language": "fr", "space": "Defaut"}},
    "POST /servlet/api/chat/topknowledge/{bot_uuid}/": {
        "body": {"language": "fr", "space": "Defaut", "maxKnowledge": 5}
    },
    "POST /servlet/api/chat/search/{bot_uuid}/": {"body": {"search": "carte", "language": "fr", "limit": 5}},
    "GET /servlet/api/serverstatus/": {"query": {"details": True, "pretty": True}},
    "PUT /servlet/api/preferences/bot/{bot_uuid}/{name}/": {
        "path": {"name": "bot.servicename"},
        "body": {"value": "Demo bank online help"},
    },
    "GET /servlet/api/preferences/bot/{bot_uuid}/{name}/": {"path": {"name": "bot.servicename"}},
    "GET /servlet/api/bot/knowledgebase/export/{bot_uuid}/{exclude_gallery}/": {"path": {"exclude_gallery": True}},
    "GET /servlet/api/dialogs/export/{bot_uuid}/": {"query": {"from": "2026-01-01", "format": "jsonl"}},
    "GET /servlet/api/logs/{bot_uuid}/": {"query": {"kind": "server", "pageSize": 20}},
    **chat("/servlet/api/chat/search/{bot_uuid}/", {"search": "carte", "language": "fr", "limit": 5}),
    "GET /servlet/api/account/dydubox/bots/language/": {"query": {"botUUID": DEMO}},
    "POST /servlet/api/account/dydubox/bots/language/": {"query": {"botUUID": DEMO}},
    **chat("/servlet/api/saml2/status/", {"botUUID": DEMO}),
    **chat("/servlet/api/saml2/userinfo/", {"botUUID": DEMO}),
    **chat("/servlet/api/chat/dialog/previous/{bot_uuid}/", {"clientId": "0a1b2c3d4e5f678"}),
    **chat(
        "/servlet/api/chat/error/{bot_uuid}/",
        {"error": "TypeError", "message": "Example from the API console", "solutionUsed": "ASSISTANT"},
    ),
    # A talk frame as CV5 polls it: its strings base64, booleans plain (a test dialog, as the console's talks).
    **chat("/chatHttp/", {"data": json.dumps({"type": "talk", "parameters": TALK_FRAME})}),
    **chat(
        "/servlet/api/chat/gdpr/{bot_uuid}/",
        {"clientId": "0a1b2c3d4e5f678", "object": "Get", "mail": "visitor@example.com", "language": "fr"},
    ),
    # The calls on a dialog: their fields filled, the contextId left to the person (INTENDED).
    **chat("/servlet/api/chat/feedback/{bot_uuid}/", {"feedBack": "positive"}),
    **chat("/servlet/api/chat/feedback/comment/{bot_uuid}/", {"comment": "Clear answer, thank you."}),
    **chat("/servlet/api/chat/feedback/insatisfaction/{bot_uuid}/", {"choiceKey": 0}),
    **chat("/servlet/api/chat/variable/{bot_uuid}/", {"name": "customer", "value": "yes"}),
    **chat("/servlet/api/chat/poll/last/{bot_uuid}/", {"lastPoll": 0}),
    **chat("/servlet/api/chat/typing/{bot_uuid}/", {"typing": True, "content": "Qm9uam91cg=="}),
    "POST /servlet/api/competencies/": {"body": {"name": "Cartes"}},
    "GET /servlet/api/competencies/{name}/": {"path": {"name": "Cartes"}},
    "PUT /servlet/api/competencies/{name}/": {"path": {"name": "Cartes"}},
    "GET /servlet/api/competencies/{name}/operators/": {"path": {"name": "Cartes"}},
    "PUT /servlet/api/competencies/{name}/operators/{login}/": {"path": {"name": "Cartes"}},
    "DELETE /servlet/api/competencies/{name}/operators/{login}/": {"path": {"name": "Cartes"}},
    "DELETE /servlet/api/competencies/{name}/": {"path": {"name": "Cartes"}},
    "PUT /servlet/api/preferences/account/{name}/": {"path": {"name": "account.example"}, "body": {"value": "1"}},
    "POST /servlet/api/preferences/account/{name}/": {"path": {"name": "account.example"}, "body": {"value": "2"}},
    "PUT /servlet/api/preferences/account/{name}/{value}/": {"path": {"name": "account.example", "value": "3"}},
    "POST /servlet/api/preferences/account/{name}/{value}/": {"path": {"name": "account.example", "value": "4"}},
    "GET /servlet/api/preferences/account/{name}/": {"path": {"name": "account.example"}},
    "DELETE /servlet/api/preferences/account/{name}/": {"path": {"name": "account.example"}},
    "POST /servlet/api/preferences/bot/{bot_uuid}/{name}/": {
        "path": {"name": "bot.example"},
        "body": {"value": "1"},
    },
    "PUT /servlet/api/preferences/bot/{bot_uuid}/{name}/{value}/": {"path": {"name": "bot.example", "value": "2"}},
    "POST /servlet/api/preferences/bot/{bot_uuid}/{name}/{value}/": {"path": {"name": "bot.example", "value": "3"}},
    "DELETE /servlet/api/preferences/bot/{bot_uuid}/{name}/": {"path": {"name": "bot.example"}},
    "POST /servlet/api/callback/{bot_uuid}/": {
        "body": {"phone": "+33 1 23 45 67 89", "name": "Example from the API console", "language": "fr"}
    },
    "POST /servlet/api/callback/{bot_uuid}/{callback_id}/{action}/": {
        "path": {"callback_id": 999999, "action": "take"}
    },
    "PUT /servlet/api/operators/availability/{login}/": {"body": {"displayName": "Camille"}},
    "POST /servlet/api/operators/availability/{login}/": {"body": {"displayName": "Camille"}},
}

SURVEY_FIRST = "Needs a survey's uuid: Surveys › GET surveys/bot/{bot_uuid} lists them."
TALK_FIRST = "Needs the contextId of a talk: run Chat › talk first and copy its decoded values.contextId here."
# Calls whose example is refused on purpose, with the status, the error code and what the person must bring
# (shown under the call in the console).
INTENDED = {
    "POST /servlet/api/authentication/": (400, "MISSING_FIELD", "Type your back-office login and password."),
    "POST /servlet/api/bousers/": (400, "MISSING_FIELD", "Choose the new user's login, password and role."),
    "POST /servlet/api/surveys/bot/{bot_uuid}/": (400, "MISSING_FIELD", "Name the survey and give its fields."),
    **{
        f"{method} /servlet/api/chat/{call}/{{bot_uuid}}/": (400, "MISSING_FIELD", TALK_FIRST)
        for method in ("GET", "POST")
        for call in (
            "feedback",
            "feedback/comment",
            "feedback/insatisfaction",
            "history",
            "poll/last",
            "typing",
            "variable",
        )
    },
    **{
        f"{method} /servlet/api/chat/print/{{bot_uuid}}/": (404, "", TALK_FIRST + " The page says so.")
        for method in ("GET", "POST")
    },
    "GET /history/": (404, "", TALK_FIRST + " The page says so."),
    "POST /fileupload/": (400, "", TALK_FIRST + " Then choose the file."),
    "GET /servlet/api/dialogs/{bot_uuid}/{context_id}/": (404, "UNKNOWN_CONTEXT", TALK_FIRST),
    **{
        f"{method} /servlet/api/chat/survey/{call}{{bot_uuid}}/": (400, "MISSING_FIELD", SURVEY_FIRST)
        for method in ("GET", "POST")
        for call in ("", "configuration/")
    },
    **{
        f"{method} /servlet/api/surveys/bot/{{bot_uuid}}/{{survey_id}}/{tail}": (404, "UNKNOWN_SURVEY", SURVEY_FIRST)
        for method, tail in (("GET", ""), ("PUT", ""), ("DELETE", ""), ("GET", "results/"))
    },
    "POST /servlet/api/callback/{bot_uuid}/{callback_id}/{action}/": (
        404,
        "UNKNOWN_CALLBACK",
        "Needs a call-back request's id: Callback › GET callback/{bot_uuid} lists them.",
    ),
    **{
        f"POST /servlet/api/{group}/import/{{bot_uuid}}/": (400, "MISSING_FIELD", "Choose the file to import.")
        for group in ("bot/data", "bot/gallery", "bot/knowledgebase", "externalmatchers/rasa")
    },
    "POST /servlet/saml2/acs/": (400, "MISSING_FIELD", "The identity provider posts it after a SAML login."),
    "GET /servlet/saml2/login/": (400, "MISSING_FIELD", "The chatbox opens it with its login and RelayState."),
}
