"""The API console's page (drf-spectacular hooks): each call shown once under /servlet/api/, with the
platform's intro on how to authenticate, the servlet groups described, and the demo bot's UUID ready
in every botUUID field so that "Try it out" works on a fresh `make run`."""

from django.utils import translation
from drf_spectacular.drainage import warn
from drf_spectacular.views import SpectacularAPIView
from rest_framework.response import Response

from bots.models import DEMO_BOT_UUID

from .chat_fields import describe_chat_fields
from .examples import EXAMPLES, INTENDED, PATH_EXAMPLES

# A body's media types in the order the console offers them: a form first, so that "Try it out" shows one
# field per parameter (talk's userInput…), as the chatbox posts them.
BODY_ORDER = ("application/x-www-form-urlencoded", "multipart/form-data")
# The same views answer under /api/ (config/urls.py): listing them twice doubled every call.
ALIAS_PREFIXES = ("/api/",)

INTRO = f"""
The servlet API of **Bot platform**, the self-hosted conversational-bot platform. Every call on this page
can be tried live: open it, **Try it out**, then **Execute**. Bot fields are filled with the demo bot's
botUUID (`{DEMO_BOT_UUID}`, seeded by `make run`); each bot's botUUID is on the back office's
API access page.

[Back office](/admin/) · [Get a token](/servlet/authentication.html) · [Demo chat](/demo/) ·
[Schema (OpenAPI 3)](/servlet/api/schema/)

### Authenticate

Calls with a padlock need credentials; the others (chat, server status) answer anyone.

1. Get a token: **Authentication › POST /servlet/api/authentication/** below with your back-office `login`
   and `password`, or the token page [/servlet/authentication.html](/servlet/authentication.html).
   A token is valid 24 hours (`TOKEN_LIFETIME_HOURS`).
2. Click **Authorize**, paste the token and confirm. Every protected call then sends it as its
   `Authorization` header (as is, or `Bearer <token>`; `Basic base64(login:password)` is accepted too).
3. When done, revoke it: **DELETE /servlet/api/authentication/**.

A call acts only on the bots of your account, within your role (administrator, editor, operator, reader):
401 without valid credentials, 403 beyond them.

### Addresses

Each call is shown once, under `/servlet/api/`. The same calls answer under **`/api/`** too (the chatbox
drops `/servlet` on local hosts), and **`/chatHttp`** under `/servlet/chatHttp` too. A trailing slash is
optional.

### Chat calls and answers

Chat calls answer GET (fields in the query string) and POST (a form, shown first, or multipart or
JSON) alike. Every string under their answer's `values` is base64 of its UTF-8 text: this page shows
them decoded under the answer (**Decoded values**). Every error is JSON `{{"error", "code", "field"}}`
(`field` when a request field is at fault) with one of the statuses listed under its call.

Talk, context and welcome calls sent from this page are **test dialogs**: the page adds
`qualificationMode=true` to them, so draft knowledge answers too and they never count in analytics or
learning. A call whose example cannot succeed alone (it needs a talk's contextId, a survey's uuid, a file…)
says so under its name.
"""


class ConsoleSchemaView(SpectacularAPIView):
    """The schema the console loads, generated once per process and language: it changes only with the
    code, and generating it took 1.3 to 3.4 s at every opening of the console."""

    generated: dict = {}

    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (version, translation.get_language())
        if key not in self.generated:
            generator = self.generator_class(urlconf=self.urlconf, api_version=version, patterns=self.patterns)
            self.generated[key] = generator.get_schema(request=request, public=self.serve_public)
        filename = self._get_filename(request, version)
        return Response(data=self.generated[key], headers={"Content-Disposition": f'inline; filename="{filename}"'})


# The spec's servlet groups (servlet-api.md §1), in its words.
GROUPS = {
    "Account": "All bots a user can access.",
    "Account preferences": "Read, add, delete preferences of a user account.",
    "Authentication": "Generate a token valid 24 hours (and revoke it).",
    "BO users": "Add a back-office user; read them.",
    "Bot preferences": "Read, add, delete bot preferences.",
    "Callback": "Operations for a telephony provider integration.",
    "Chat": "Conversation operations: the chatbox's calls.",
    "Competencies": "Add or delete a competency of a user account, and its operators.",
    "Dialogs": "Bulk export of conversations; one dialog.",
    "External matchers": "The mirror of an external language-understanding matcher (Rasa): status, export, import.",
    "Knowledge base": "Import, export, delete a knowledge base (XML).",
    "Log Explicit": "The bot's server and client error logs.",
    "Matching groups": "All formulation groups of a bot.",
    "Operators availability": "Availability of live-chat operators.",
    "Preferences": "The preference keys the platform knows.",
    "Saml2 service provider for chatboxes": "SAML operations.",
    "Server status": "Server status and debug information.",
    "Surveys": "Create and retrieve surveys, and their results.",
    "Transfer Bot Data": "Import and export bot data (knowledge base and preferences), and an image gallery.",
    "Who am I": "What the servlet received.",
}


def one_prefix(endpoints, **kwargs):
    """Preprocessing hook: each call once, under /servlet/api/; the /api/ aliases are told in the intro."""
    return [endpoint for endpoint in endpoints if not endpoint[0].startswith(ALIAS_PREFIXES)]


def front_matter(result, generator, request, public):
    """Postprocessing hook: the intro, the groups described, answers described, forms first, examples, every
    chat field's meaning."""
    result["info"]["description"] = INTRO.strip()
    used = {
        tag for item in result["paths"].values() for operation in item.values() for tag in operation.get("tags", [])
    }
    result["tags"] = [{"name": name, "description": GROUPS.get(name, "")} for name in sorted(used)]
    for item in result["paths"].values():
        for operation in item.values():
            forms_first(operation)
            describe_answers(operation)
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and parameter["name"] == "bot_uuid":
                    parameter.setdefault("description", "The bot's botUUID (back office › API access).")
                    parameter.setdefault("example", DEMO_BOT_UUID)
                elif parameter["in"] == "path" and parameter["name"] in PATH_EXAMPLES:
                    parameter.setdefault("example", PATH_EXAMPLES[parameter["name"]])
    for call, example in EXAMPLES.items():
        add_example(result, call, example)
    for call, (status, code, needs) in INTENDED.items():
        announce_refusal(result, call, status, code, needs)
    describe_chat_fields(result)
    blank_form_fields(result)
    return result


def announce_refusal(result: dict, call: str, status: int, code: str, needs: str) -> None:
    """Under a call whose example cannot succeed alone, what it answers as it comes and what it needs."""
    method, path = call.split(" ", 1)
    operation = result["paths"].get(path, {}).get(method.lower())
    if operation is None:
        warn(f"API console refusal for {call}: no such call")
        return
    answer = f"{status} {code}".strip()
    note = f"**Try it out:** {needs} As it comes, the example answers {answer}."
    operation["description"] = "\n\n".join(part for part in (operation.get("description", ""), note) if part)


def describe_answers(operation: dict) -> None:
    """A success declared with its schema alone is described by what its call does (its summary), or by
    its schema's own words ("{}: received."): Swagger UI showed those answers without a word."""
    for status, response in operation["responses"].items():
        if status.startswith("2") and not response.get("description", "").strip():
            media = next(iter(response.get("content", {}).values()), {})
            response["description"] = media.get("schema", {}).get("description") or operation.get("summary", "")


def forms_first(operation: dict) -> None:
    body = operation.get("requestBody")
    if body:
        content = body["content"]
        ranked = sorted(content, key=lambda media: BODY_ORDER.index(media) if media in BODY_ORDER else len(BODY_ORDER))
        body["content"] = {media: content[media] for media in ranked}


def blank_form_fields(result: dict) -> None:
    """A form's fields start empty in "Try it out" (an empty field is not sent), or with the call's example.
    Swagger UI fills every form field with a sample of its type otherwise: talk went out with
    variables=string, qualificationMode=true and a dozen other made-up values."""
    schemas = result["components"]["schemas"]
    for item in result["paths"].values():
        for operation in item.values():
            content = operation.get("requestBody", {}).get("content", {})
            for media_type in BODY_ORDER:
                if media_type not in content:
                    continue
                form = schemas.get(content[media_type]["schema"].get("$ref", "").rsplit("/", 1)[-1])
                example = content[media_type].get("examples", {}).get("demo", {}).get("value", {})
                for name, field in (form or {}).get("properties", {}).items():
                    if name == "password":
                        field["format"] = "password"  # masked as it is typed
                    if name in example:
                        field["example"] = example[name]
                    elif field.get("format") != "binary" and "default" not in field:
                        field.setdefault("example", "")


def add_example(result: dict, call: str, example: dict) -> None:
    """One call's example values; a call or field that is not in the schema is a warning (schema
    generation then fails its test), so an example never goes stale unseen."""
    method, path = call.split(" ", 1)
    operation = result["paths"].get(path, {}).get(method.lower())
    if operation is None:
        warn(f"API console example for {call}: no such call")
        return
    parameters = {(parameter["in"], parameter["name"]): parameter for parameter in operation.get("parameters", [])}
    for location in ("path", "query"):
        for name, value in example.get(location, {}).items():
            if (location, name) not in parameters:
                warn(f"API console example for {call}: no {location} field {name}")
                continue
            parameters[(location, name)]["example"] = value
    if "body" in example:
        if "requestBody" not in operation:
            warn(f"API console example for {call}: the call takes no body")
            return
        for media in operation["requestBody"]["content"].values():
            reference = media["schema"].get("$ref", "")
            fields = result["components"]["schemas"].get(reference.rsplit("/", 1)[-1], media["schema"])
            for name in set(example["body"]) - set(fields.get("properties", {})):
                warn(f"API console example for {call}: no body field {name}")
            media["examples"] = {"demo": {"summary": "On the demo bot", "value": example["body"]}}
