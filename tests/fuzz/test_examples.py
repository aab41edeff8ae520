"""Every example the API console documents is sent as documented, in process, with an administrator's token
(as after Authorize), and its answer checked against the schema (status, content type, body). The console's
ready-to-run examples (bots/servlet/examples.py) must succeed, except those whose refusal the console
announces (INTENDED); the other calls must answer as the schema says. An example that names a call or a field
the schema does not have fails schema generation."""

import pytest
from django.core.management import call_command
from drf_spectacular.drainage import GENERATOR_STATS

from bots.servlet import examples

from .conftest import CHECKS

FORM = "application/x-www-form-urlencoded"
HTTP_METHODS = ("get", "put", "post", "delete", "patch")


def wire(value):
    """A value as the console sends it in a path or a query string (JSON's spelling of booleans)."""
    return ("true" if value else "false") if isinstance(value, bool) else value


def documented_examples(raw: dict):
    """(method, path, path fields, query fields, form body or None) of every call with examples for all
    its required path fields; the console's own examples first, deletions last (they empty the demo bot)."""
    found = []
    for path, item in raw["paths"].items():
        for method in HTTP_METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            parameters = operation.get("parameters", [])
            path_fields = {p["name"]: wire(p["example"]) for p in parameters if p["in"] == "path" and "example" in p}
            if any(p["in"] == "path" and p["name"] not in path_fields for p in parameters):
                continue
            query = {p["name"]: wire(p["example"]) for p in parameters if p["in"] == "query" and "example" in p}
            form = operation.get("requestBody", {}).get("content", {}).get(FORM, {})
            body = form.get("examples", {}).get("demo", {}).get("value")
            found.append((method.upper(), path, path_fields, query, body))
    console = list(examples.EXAMPLES)

    def rank(call):
        name = f"{call[0]} {call[1]}"
        return (0, console.index(name)) if name in console else (2 if call[0] == "DELETE" else 1, 0)

    return sorted(found, key=rank)


def test_every_documented_example_answers_as_the_schema_says(api_schema, target):
    calls = documented_examples(api_schema.raw_schema)
    # The calls on an operator name make run's administrator, `admin`, who is the demo's operator; this
    # test's administrator is another user (test_examples_live.py runs them against a fresh make run).
    ready = {call for call in examples.EXAMPLES if call not in examples.INTENDED and "{login}" not in call}
    assert ready <= {f"{method} {path}" for method, path, *_ in calls}
    failures = []
    for method, path, path_fields, query, body in calls:
        sent = {"body": body, "media_type": FORM} if body is not None else {}
        case = api_schema[path][method].Case(
            path_parameters=path_fields,
            query=query,
            headers={"Authorization": target.token()},  # fresh: an example may revoke the one before
            **sent,
        )
        response = case.call(environ_base={"REMOTE_ADDR": target.address})
        try:
            case.validate_response(response, checks=CHECKS)
        except (AssertionError, BaseExceptionGroup) as failure:
            failures.append(f"{method} {path}: {failure}")
            continue
        if f"{method} {path}" in ready and not 200 <= response.status_code < 300:
            failures.append(
                f"{method} {path}: the console's example answered {response.status_code} {response.text[:200]}"
            )
    assert len(calls) > 90, f"only {len(calls)} calls could be sent from their examples"
    assert not failures, "\n".join(failures)


def test_the_talk_example_gets_the_knowledge_answer(api_schema, target, chatbox):
    talk = examples.EXAMPLES["POST /servlet/api/chat/talk/{bot_uuid}/"]["body"]
    values = chatbox.talk(talk["userInput"])
    assert values["knowledgeId"]  # answered from the knowledge base, not "not understood"
    assert "€" in values["text"]


@pytest.mark.django_db
def test_an_example_naming_an_unknown_call_or_field_fails_schema_generation(monkeypatch, tmp_path):
    stale = {
        "POST /servlet/api/chat/nosuchcall/{bot_uuid}/": {"body": {"userInput": "Bonjour"}},
        "POST /servlet/api/chat/talk/{bot_uuid}/": {"body": {"userImput": "Bonjour"}},
        "GET /servlet/api/serverstatus/": {"query": {"detail": True}},
    }
    monkeypatch.setattr("bots.servlet.console.EXAMPLES", stale)
    GENERATOR_STATS.reset()
    try:
        with pytest.raises(Exception, match="Failing as requested due to warnings"):
            call_command("spectacular", "--fail-on-warn", "--file", str(tmp_path / "schema.yml"))
        warned = " ".join(GENERATOR_STATS._warn_cache)
    finally:
        GENERATOR_STATS.reset()  # the next schema generation of this process starts clean
    assert "nosuchcall" in warned and "no body field userImput" in warned and "no query field detail" in warned
