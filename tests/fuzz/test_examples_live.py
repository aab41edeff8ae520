"""Every call of the API console executed as its documented example against what `make run` serves: a
scratch installation migrated and seeded as `make run` does, daphne serving it (tests/servers.py), the
schema read from that server, each call sent with its example values and an administrator token (as after
Authorize). Any 4xx fails the test unless the console says the example intends it
(bots/servlet/examples.py INTENDED: a call that needs what only a person or an earlier call has, such as a
password, a file or a talk's contextId), and then only that status with that error code. Calls are sent in
the console's order: its own examples first, the other calls, deletions last."""

import json
import urllib.parse

import pytest

from bots.servlet import examples
from tests.servers import Browser, Platform

from .test_examples import documented_examples

pytestmark = pytest.mark.django_db  # the test process's database is not used: the servers have their own


def wire(value) -> str:
    """A value as the console sends it (JSON's spelling of booleans, objects as JSON)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def request_of(path: str, path_fields: dict, query: dict, body: dict | None):
    for name, value in path_fields.items():
        path = path.replace(f"{{{name}}}", urllib.parse.quote(wire(value), safe=""))
    if query:
        path += "?" + urllib.parse.urlencode({name: wire(value) for name, value in query.items()})
    data = urllib.parse.urlencode({name: wire(value) for name, value in body.items()}).encode() if body else None
    return path, data


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("examples-live")) as platform:
        yield platform


def test_every_documented_example_runs_against_a_fresh_make_run(served):
    server = Browser(served.servers[0])
    status, raw = server.request("GET", "/servlet/api/schema/?format=json")
    assert status == 200, raw[:300]
    schema = json.loads(raw)
    operations = sum(
        1 for item in schema["paths"].values() for method in item if method in ("get", "put", "post", "delete", "patch")
    )
    calls = documented_examples(schema)
    assert len(calls) == operations, "every call has an example for each of its path fields"
    unintended, wrong_refusals, answered = [], [], {}
    token = served.admin_token()
    for method, path, path_fields, query, body in calls:
        call = f"{method} {path}"
        target, data = request_of(path, path_fields, query, body)
        headers = {"Authorization": token}
        if data is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        status, answer = server.request(method, target, data, headers)
        answered[call] = status
        if "/authentication/" in path:  # the Authentication examples revoke the token they were sent with
            token = served.admin_token()
        intended = examples.INTENDED.get(call)
        if intended is not None:  # the console says so under the call, before anyone executes it
            assert intended[2] in schema["paths"][path][method.lower()]["description"], call
        if status >= 500 or (400 <= status < 500 and intended is None):
            unintended.append(f"{call}: {status} {answer[:200]!r}")
        elif intended is not None and (status, error_code(answer)) != intended[:2]:
            wrong_refusals.append(f"{call}: {status} {error_code(answer)}, the console says {intended[:2]}")
    assert not unintended, f"{len(unintended)} examples refused unintended:\n" + "\n".join(unintended)
    assert not wrong_refusals, "\n".join(wrong_refusals)
    assert set(examples.INTENDED) <= set(answered), "an intended refusal names no call"
    succeeded = [call for call, status in answered.items() if status < 400]
    assert len(succeeded) == len(answered) - len(examples.INTENDED) > 90


def error_code(answer: bytes) -> str:
    try:
        return json.loads(answer).get("code", "")
    except (ValueError, AttributeError):
        return ""
