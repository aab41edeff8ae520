"""The schema the fuzzer holds the platform to is itself sound: drf-spectacular generates it without
a warning or an error and it validates as OpenAPI 3; every operation documents the errors any request may
meet (413 for a body over its limit, 503 for a shared service down — except the server status, which then
answers Ko), each in the one servlet error shape; and operation ids are unique without numbering.
As the API console shows it: each call once (under /servlet/api/, the aliases told in the intro), every
call that may answer 401 declaring the Authorization header (so Authorize reaches it), and bodies offered
as forms first (talk's "Try it out" has a userInput field)."""

import pytest
import yaml
from django.core.management import call_command

pytestmark = pytest.mark.django_db

HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


@pytest.fixture(scope="module")
def schema(tmp_path_factory, django_db_blocker):
    path = tmp_path_factory.mktemp("schema") / "schema.yml"
    with django_db_blocker.unblock():
        # --fail-on-warn: a warning (an id collision, an unresolvable serializer…) fails the command.
        call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path))
    return yaml.safe_load(path.read_text())


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method, operation


def test_every_operation_documents_the_errors_any_request_may_meet(schema):
    undocumented = []
    for path, method, operation in operations(schema):
        expected = {"413"} if path.endswith("/serverstatus/") else {"413", "503"}
        missing = expected - set(map(str, operation["responses"]))
        if missing:
            undocumented.append(f"{method.upper()} {path}: {sorted(missing)}")
    assert not undocumented


# The old servlet's pages, read by a person (the printable transcript) or parsed by CV5 (the upload's answer):
# their errors are HTML pages too (text/html only); their JSON errors keep the servlet error shape.
HTML_PAGES = {"/fileupload/", "/history/", "/servlet/api/chat/print/{bot_uuid}/"}


def test_every_documented_error_is_the_servlet_error_shape(schema):
    error_ref = "#/components/schemas/ServletError"
    others = []
    for path, method, operation in operations(schema):
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            content = response.get("content", {})
            if path in HTML_PAGES:
                content = {media: body for media, body in content.items() if media != "text/html"}
                if not content:
                    continue
            refs = {media["schema"].get("$ref") for media in content.values()}
            if refs != {error_ref}:
                others.append(f"{method.upper()} {path} {status}: {refs}")
    assert not others
    assert set(schema["components"]["schemas"]["ServletError"]["required"]) == {"error", "code"}


def test_operation_ids_are_unique_and_name_their_path(schema):
    ids = [operation["operationId"] for _, _, operation in operations(schema)]
    assert len(ids) == len(set(ids)) > 100
    talk = schema["paths"]["/servlet/api/chat/talk/{bot_uuid}/{context_id}/"]["post"]
    assert talk["operationId"] == "servlet_api_chat_talk_bot_uuid_context_id_create"


def test_each_call_is_shown_once_and_the_aliases_are_told(schema):
    paths = list(schema["paths"])
    assert not [path for path in paths if path.startswith("/api/")]
    assert "/servlet/api/chat/talk/{bot_uuid}/" in paths
    intro = schema["info"]["description"]
    assert "**`/api/`**" in intro and "`/servlet/chatHttp`" in intro
    assert "Authorize" in intro and "/servlet/api/authentication/" in intro


def test_every_call_that_may_answer_401_sends_the_authorization_header(schema):
    scheme = schema["components"]["securitySchemes"]["servletAuthorization"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "Authorization")
    mismatched = [
        f"{method.upper()} {path}"
        for path, method, operation in operations(schema)
        if ("401" in operation["responses"]) != (operation.get("security") == [{"servletAuthorization": []}])
    ]
    assert not mismatched
    # The calls that went out without the token after Authorize (issue 10): each group is protected.
    protected_tags = {
        tag for _, _, operation in operations(schema) if operation.get("security") for tag in operation["tags"]
    }
    assert {"Knowledge base", "Transfer Bot Data", "Matching groups", "Dialogs", "Log Explicit"} <= protected_tags


def test_bodies_are_offered_as_forms_first(schema):
    talk = schema["paths"]["/servlet/api/chat/talk/{bot_uuid}/"]["post"]["requestBody"]["content"]
    assert next(iter(talk)) == "application/x-www-form-urlencoded"
    form = schema["components"]["schemas"][talk["application/x-www-form-urlencoded"]["schema"]["$ref"].split("/")[-1]]
    assert {"userInput", "language", "space", "contextId"} <= set(form["properties"])
    for path, method, operation in operations(schema):
        content = list(operation.get("requestBody", {}).get("content", {}))
        if "application/x-www-form-urlencoded" in content:
            assert content[0] == "application/x-www-form-urlencoded", f"{method.upper()} {path}"


def test_every_answer_is_described(schema):
    bare = [
        f"{method.upper()} {path} {status}"
        for path, method, operation in operations(schema)
        for status, response in operation["responses"].items()
        if not response.get("description", "").strip()
    ]
    assert not bare
