"""The API console's ready-to-run examples, per call: the values "Try it out" starts from, each one
answered with success on the demo bot (tests/fuzz/test_examples.py sends every one of them)."""

# "METHOD path" → the example's path fields, query fields and body (a form: the same fields in JSON).
# Every botUUID path field has the demo bot's UUID as its example already (console.front_matter). The test
# sends them in this order: the preference set by the PUT is read by the GET after it.
TALK = {"userInput": "Combien coûte le compte ?", "language": "fr", "space": "Defaut"}
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
}
