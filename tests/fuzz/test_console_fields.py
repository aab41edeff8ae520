"""The API console runs on the first try (issue 25 item 6), as far as the schema goes: each operation
documents the path fields of its own path and no other (a route registered with and without an optional
part, export/{bot_uuid} and export/{bot_uuid}/{exclude_gallery}, shares one view: the shorter one
documented a required exclude_gallery it cannot take, and "Execute" answered "Required field is not
provided"), and every field of every Chat call says what it is: its type, its allowed values where the
spec closes them, and its meaning."""

import json
import re

import pytest

from .test_schema import operations, schema  # noqa: F401 (the schema fixture)

pytestmark = pytest.mark.django_db


def test_every_operation_documents_exactly_the_path_fields_of_its_path(schema):  # noqa: F811
    wrong = []
    for path, method, operation in operations(schema):
        in_path = set(re.findall(r"{([^}]+)}", path))
        documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
        if documented != in_path:
            wrong.append(f"{method.upper()} {path}: documents {sorted(documented)}, its path has {sorted(in_path)}")
    assert not wrong, "\n".join(wrong)


def test_the_gallery_flag_is_documented_only_where_the_path_has_it(schema):  # noqa: F811
    for call in ("bot/knowledgebase/export", "bot/knowledgebase/delete", "bot/data/export"):
        method = "delete" if "delete" in call else "get"
        short = schema["paths"][f"/servlet/api/{call}/{{bot_uuid}}/"][method]
        assert [p["name"] for p in short["parameters"] if p["in"] == "path"] == ["bot_uuid"], call
        full = schema["paths"][f"/servlet/api/{call}/{{bot_uuid}}/{{exclude_gallery}}/"][method]
        flag = next(p for p in full["parameters"] if p["name"] == "exclude_gallery")
        assert flag["required"] and flag["schema"]["type"] == "boolean" and flag["description"], call


def chat_fields(schema):  # noqa: F811
    """(call, field name, where the words are, its schema) of every field of every Chat call."""
    forms = schema["components"]["schemas"]
    for path, method, operation in operations(schema):
        if "Chat" not in operation["tags"]:
            continue
        call = f"{method.upper()} {path}"
        for parameter in operation.get("parameters", []):
            yield call, parameter["name"], parameter, parameter["schema"]
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            reference = media["schema"].get("$ref", "")
            form = forms[reference.rsplit("/", 1)[-1]] if reference else media["schema"]
            for name, field in form.get("properties", {}).items():
                yield f"{call} ({media_type})", name, field, field


def typed(field: dict) -> bool:
    """A type of its own, or a named schema's (an enum of choices is `allOf: [{$ref}]`)."""
    return bool(field.get("type") or field.get("$ref") or any("$ref" in part for part in field.get("allOf", [])))


def test_every_chat_field_has_a_type_and_a_meaning(schema):  # noqa: F811
    fields = list(chat_fields(schema))
    assert len(fields) > 300
    bare = [f"{call}: {name}" for call, name, words, _ in fields if not words.get("description", "").strip()]
    untyped = [f"{call}: {name}" for call, name, _, field in fields if not typed(field)]
    assert not bare, "fields without a meaning:\n" + "\n".join(bare)
    assert not untyped, "fields without a type:\n" + "\n".join(untyped)


def test_the_talk_fields_the_walk_found_undescribed_say_what_the_spec_says(schema):  # noqa: F811
    reference = schema["paths"]["/servlet/api/chat/talk/{bot_uuid}/"]["post"]["requestBody"]["content"]
    form = schema["components"]["schemas"][reference["application/x-www-form-urlencoded"]["schema"]["$ref"][21:]]
    fields = form["properties"]
    assert fields["alreadyCame"]["type"] == "boolean"
    assert "come before" in fields["alreadyCame"]["description"]
    assert fields["browser"]["type"] == fields["os"]["type"] == "string"
    assert "Chrome" in fields["browser"]["description"] and "operating system" in fields["os"]["description"]
    assert fields["contextType"]["enum"] == ["Web", "Vocal", "Android", "iOS"]
    assert "channel" in fields["contextType"]["description"]
    assert "analytics" in fields["qualificationMode"]["description"]
    # The same words on the GET form of the call (its query fields).
    query = {p["name"]: p for p in schema["paths"]["/servlet/api/chat/talk/{bot_uuid}/"]["get"]["parameters"]}
    assert query["contextType"]["schema"]["enum"] == ["Web", "Vocal", "Android", "iOS"]
    assert query["os"]["description"] == fields["os"]["description"]


@pytest.mark.parametrize(("language", "title"), [("en", "Decoded values"), ("fr", "Valeurs décodées")])
def test_the_console_page_speaks_the_back_office_language(client, language, title):
    client.cookies["django_language"] = language
    page = client.get("/servlet/api/doc/").content.decode()
    assert f'<html lang="{language}">' in page
    words = json.loads(re.search(r'<script id="api-console" type="application/json">(.*?)</script>', page).group(1))
    assert words["decodedTitle"] == title and "/static/servlet/api_console.js" in page
    # The platform's script comes before drf-spectacular's, which starts Swagger UI through its wrapper.
    assert page.index("api_console.js") < page.index("SwaggerUIBundle({")
