"""What each field of the Chat group means, in the spec's words (servlet-api.md "Shared request parameters",
client-contract.md §2): the API console describes every chat field with it, wherever a call's own form
left the field without words.

Each entry is the description and, for a field with a closed list of values, that list (`enum`). A call's
own help text wins: it says what that call does with the field.
"""

CONTEXT = (
    "The dialog's context id, as a talk returns it in `values.contextId` (also contextId, contextUUID, "
    "contextUuid, ctx). Unknown, malformed or revoked (10 minutes unused): the call acts on no dialog."
)
STORED = "stored with the dialog"
EXPORTED = "stored with the dialog (read back by the Dialogs calls: export, one dialog)"

CHAT_FIELDS: dict[str, dict] = {
    "alreadyCame": {
        "description": "true: the visitor has come before; false (the default): never before. CV5 sends it on "
        f"every talk; {STORED}."
    },
    "browser": {
        "description": "The visitor's browser as the chatbox names it, e.g. `Chrome 156.0.0.0` (CV5) or "
        f"`Google Chrome or Chromium` (its websocket); at most 200 characters kept, {EXPORTED} and shown to "
        "live-chat operators. Personal data: part of a GDPR export."
    },
    "os": {
        "description": "The visitor's operating system as the chatbox names it, e.g. `Linux undefined` (CV5); at "
        f"most 200 characters kept, {EXPORTED} and shown to live-chat operators. Personal data: part of a GDPR "
        "export."
    },
    "contextType": {
        "description": "The channel the dialog comes from: Web, Vocal, Android or iOS (the spec's values). CV5 "
        f"sends Web over its websocket and nothing over REST; {STORED} (at most 20 characters). Another value is "
        "stored as sent, not refused.",
        "enum": ["Web", "Vocal", "Android", "iOS"],
    },
    "solutionUsed": {
        "description": "The client's solution: ASSISTANT (the chatbox: CV5 always sends it on talk, even in live "
        "chat) or LIVECHAT (live-chat polls and chatHttp frames); at most 20 characters, stored with the dialog "
        "or the error as sent. It does not change the answer."
    },
    "pureLiveChat": {
        "description": "true: the pureLivechat option (straight to an operator) on; false: off. Read and checked "
        "as a boolean; this platform does not act on it (live chat starts from an answer or a request)."
    },
    "qualificationMode": {
        "description": "true: a test dialog, as the back office's test box makes them: draft knowledge answers too "
        "and the dialog never counts in analytics or learning. false (the default): published knowledge only, "
        "the dialog counted. Once true, the dialog stays a test dialog."
    },
    "clientId": {
        "description": "The visitor's browser id (CV5: 15 hexadecimal characters kept in localStorage): links "
        "the visitor's dialogs (previous dialogs, GDPR requests). Absent: an anonymous dialog."
    },
    "contextId": {"description": CONTEXT},
    "contextUuid": {"description": CONTEXT},
    "context_id": {"description": CONTEXT},
    "language": {"description": "Language code (fr, en…); a language the bot does not speak: its default one."},
    "space": {"description": "Consultation space (the demo's: Defaut); unknown: the bot's default space."},
    "userUrl": {"description": "The page the visitor is on (its URL); at most 1,000 characters kept."},
    "comment": {"description": "The visitor's comment on the answer they rated (at most 1,000 characters kept)."},
    "choiceKey": {
        "description": "The reason for dissatisfaction the visitor chose: its index, 0, 1 or 2, in the order "
        "the chatbox offers the reasons. The rated answer becomes negative if it was not."
    },
    "object": {"description": "Get: the visitor asks for their data; Delete: for its deletion."},
    "name": {"description": "The context variable's name (at most 100 characters)."},
    "error": {"description": "The error's kind, e.g. TypeError (at most 500 characters)."},
    "message": {"description": "The error's message (at most 10,000 characters)."},
    "stackTrace": {"description": "The JavaScript stack trace (at most 20,000 characters)."},
    "jsCreation": {"description": "When the chatbox's script was built (its build stamp; at most 100 characters)."},
    "includeTagChildren": {"description": "true: the tag's sub-tags count too (with tagID); false (the default)."},
    "format": {
        "description": "The answer's format: JSon, the chatbox's (the default). The old servlet's other formats "
        "(XML, JSonDydu) are answered as JSon too."
    },
    "typing": {
        "description": "true (the default): the visitor is typing `content`, shown to the operator; false, or no "
        "content: stopped typing."
    },
    "reading": {"description": "true: the visitor has read the operator's messages (live chat); false: not."},
    "userLabel": {"description": "The visitor's name on the page (default Moi; Me in English)."},
    "botLabel": {"description": "The bot's name on the page (default Chatbot)."},
    "dydu-upload-file": {"description": "The file, as a multipart field of this name (CV5's; `fin` names another)."},
}


def describe_chat_fields(result: dict) -> None:
    """Every field of every Chat call (path and query fields, form and JSON bodies) gets its meaning and,
    where the spec closes the list, its allowed values; the schema's own words are kept."""
    schemas = result["components"]["schemas"]
    for item in result["paths"].values():
        for operation in item.values():
            if "Chat" not in operation.get("tags", []):
                continue
            for parameter in operation.get("parameters", []):
                describe(parameter["name"], parameter, parameter.setdefault("schema", {}))
            for media in operation.get("requestBody", {}).get("content", {}).values():
                reference = media["schema"].get("$ref", "")
                form = schemas.get(reference.rsplit("/", 1)[-1]) if reference else media["schema"]
                for name, field in (form or {}).get("properties", {}).items():
                    describe(name, field, field)


def describe(name: str, holder: dict, schema: dict) -> None:
    """holder takes the description (a parameter, or a body field itself), schema the allowed values."""
    meaning = CHAT_FIELDS.get(name)
    if meaning is None:
        return
    if not holder.get("description", "").strip():
        holder["description"] = meaning["description"]
    if "enum" in meaning and "enum" not in schema and schema.get("type") == "string":
        schema["enum"] = list(meaning["enum"])
