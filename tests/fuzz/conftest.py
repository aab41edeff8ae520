"""Fuzzing every servlet operation from the platform's own OpenAPI schema (schemathesis, pinned in
requirements.txt), in process against the real WSGI application and the test database.

Each operation gets a bounded number of generated requests (FUZZ_MAX_EXAMPLES, default below; four
times as many for the calls that store what a visitor sends), half
valid for its schema and half not; generation is derandomised, so a run is reproducible and CI stays
fast (FUZZ_MAX_EXAMPLES=200 for a longer hunt). A request fails when the answer is a 500, has a
status code the schema does not document, or a body or content type other than the schema says for
that status; and a refused request (4xx) must leave the stored dialogs, interactions, visits, client
errors and GDPR requests exactly as they were.

schemathesis's own pytest plugin (`from_fixture(...).parametrize()`) does not run under this pytest
(it sets `Node._nodeid`, gone in pytest 9), and a test item per operation would seed the demo bot
about 200 times: one test per file drives every operation through Hypothesis instead.
"""

import base64
import hashlib
import json
import os
import random
import re
import traceback

import hypothesis
import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import ApiToken, Role
from dialogs.models import (
    ClientError,
    Dialog,
    GdprRequest,
    Interaction,
    Survey,
    SurveyAnswer,
    SurveyAnswerValue,
    SurveyField,
    Visit,
)
from tests.accounts.personas import make_persona

SCHEMA_PATH = "/servlet/api/schema/"
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "12"))
# The calls where a visitor's text is stored get FOCUS times as many: at 12 examples, most generated
# talks had no userInput at all.
STORING_CALLS = (
    r"/chat/(talk|context|feedback|variable|gdpr|error|welcomecall|typing|survey)/|^/chatHttp/|^/fileupload/"
)
FOCUS = 4
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
# /api/… serves the very same views as /servlet/api/…: fuzzing one prefix covers them.
OPERATIONS = r"^/(servlet/api/|servlet/saml2/|chatHttp/|fileupload/|history/)"
# A developer chasing one failure narrows the run to the operations whose path matches this.
ONLY = os.environ.get("FUZZ_ONLY", "")
CONTEXT_FIELDS = {"contextId", "contextUUID", "contextUuid", "contextuuid", "ctx"}
STORED = (Dialog, Interaction, Visit, ClientError, GdprRequest, Survey, SurveyField, SurveyAnswer, SurveyAnswerValue)
# A survey's id in a path or a field: the demo's satisfaction survey, so survey calls run past its lookup.
SURVEY_FIELDS = {"surveyId", "uuid"}
SETTINGS = hypothesis.settings(
    derandomize=True,
    database=None,
    deadline=None,
    # The first failing request is reported as generated: shrinking it could take minutes.
    phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
    suppress_health_check=list(hypothesis.HealthCheck),
    verbosity=hypothesis.Verbosity.quiet,
)


@pytest.fixture
def wsgi_app(target):
    """The project's WSGI application, answering inside the test's transaction: Django closes the
    database connection around each request otherwise (its test client does the same). Set up after
    `target`, whose test-client request connects Django's own handler again when it is done."""
    from config.wsgi import application

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield application
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


class Target:
    """What the generated requests aim at: mostly the demo bot and a live context of it, so that the
    fuzzer reaches past the bot lookup; sometimes what it generated (unknown bots and contexts)."""

    def __init__(self, bot, user, context_id: str, address: str):
        self.bot = bot
        self.user = user
        self.context_id = context_id
        self.address = address

    def aim(self, case) -> None:
        # The choice depends on the generated case only, so a run stays reproducible.
        generated = repr((case.path_parameters, case.query, case.body)).encode()
        roll = int(hashlib.sha256(generated).hexdigest(), 16) % 8
        parameters = case.path_parameters or {}
        if roll and "bot_uuid" in parameters:
            parameters["bot_uuid"] = str(self.bot.uuid)
        if roll > 2 and "context_id" in parameters:
            parameters["context_id"] = self.context_id
        if roll > 4 and "login" in parameters:
            parameters["login"] = self.user.username
        survey_id = self.survey_id() if roll > 2 else ""  # none left once the fuzzer deleted it
        if survey_id and "survey_id" in parameters:
            parameters["survey_id"] = survey_id
        # Most chat calls name their context in a field: a live one lets them run past its lookup.
        for fields in (case.query, case.body):
            if roll > 2 and isinstance(fields, dict):
                for name in CONTEXT_FIELDS.intersection(fields):
                    fields[name] = self.context_id
                for name in SURVEY_FIELDS.intersection(fields) if survey_id else ():
                    fields[name] = survey_id
                # The old servlet's chatHttp carries a whole chatbox frame: a talk whose text is what
                # was generated reaches the frame handler instead of stopping at the JSON parser.
                if case.path.startswith("/chatHttp") and isinstance(fields.get("data"), str):
                    fields["data"] = self.talk_frame(fields["data"])

    def survey_id(self) -> str:
        found = Survey.objects.filter(bot=self.bot).order_by("id").values_list("uuid", flat=True).first()
        return str(found or "")

    def talk_frame(self, text: str) -> str:
        parameters = {"botId": str(self.bot.uuid), "contextId": self.context_id, "userInput": text[:200]}
        encoded = {
            name: base64.b64encode(value.encode("utf-8", "surrogatepass")).decode()
            for name, value in parameters.items()
        }
        return json.dumps({"type": "talk", "parameters": encoded})

    def token(self) -> str:
        """A fresh valid token for each request: the fuzzer may revoke the one it was given."""
        _, key = ApiToken.issue(self.user)
        return key


@pytest.fixture
def target(db, demo_bot, client):
    user, _ = make_persona(demo_bot.account or "Account A", Role.ADMINISTRATOR)
    if demo_bot.account_id is None:
        demo_bot.account = user.membership.account
        demo_bot.save(update_fields=["account"])
    talk = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", {"userInput": "Bonjour"})
    assert talk.status_code == 200, talk.content
    context_id = Dialog.objects.latest("id").uuid
    # Its own client address: the fuzzer's failed logins must not lock other tests' addresses out.
    address = f"198.18.{random.randrange(256)}.{random.randrange(1, 255)}"
    return Target(demo_bot, user, str(context_id), address)


@pytest.fixture
def api_schema(wsgi_app, target):
    # One regular expression: schemathesis keeps an operation that any of its include() rules match.
    paths = rf"(?={OPERATIONS})(?=.*(?:{ONLY}))" if ONLY else OPERATIONS
    schema = schemathesis.openapi.from_wsgi(SCHEMA_PATH, wsgi_app)
    ask_for_user_input(schema.raw_schema)
    return schema.include(path_regex=paths)


def ask_for_user_input(raw: dict) -> None:
    """Generate every talk with a userInput. The schema rightly leaves it optional (an empty talk is
    answered), but among a dozen examples of twenty optional fields almost none carried one, so the
    visitor's text, the input that matters most, was hardly fuzzed. Only generation changes: answers
    are checked against the schema as served."""
    for path, item in raw["paths"].items():
        if "/chat/talk/" not in path:
            continue
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "userInput":
                    parameter["required"] = True
            for media in operation.get("requestBody", {}).get("content", {}).values():
                name = media["schema"]["$ref"].rsplit("/", 1)[-1]
                form = raw["components"]["schemas"][name]
                form["required"] = sorted({*form.get("required", []), "userInput"})


def stored() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in STORED)


def call_and_check(case, target: Target, *, with_token: bool) -> None:
    target.aim(case)
    if with_token:
        case.headers = {**(case.headers or {}), "Authorization": target.token()}
    before = stored()
    response = case.call(environ_base={"REMOTE_ADDR": target.address})
    case.validate_response(response, checks=CHECKS)
    if 400 <= response.status_code < 500:
        assert stored() == before, f"a refused request ({response.status_code}) changed stored data"


def fuzz_every_operation(schema, target: Target, *, with_token: bool) -> None:
    """Every operation in turn; all failures are gathered, then reported together."""
    failures = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        strategy = st.one_of(
            operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE)
        )

        examples = MAX_EXAMPLES * (FOCUS if re.search(STORING_CALLS, operation.path) else 1)

        @hypothesis.settings(SETTINGS, max_examples=examples)
        @hypothesis.given(case=strategy)
        def run(case):
            call_and_check(case, target, with_token=with_token)

        try:
            run()
        except (Exception, BaseExceptionGroup) as failure:  # schemathesis's FailureGroup is a BaseExceptionGroup
            notes = "\n".join(getattr(failure, "__notes__", []))
            if not isinstance(failure, AssertionError | BaseExceptionGroup):  # a fault of the test itself
                notes += "".join(traceback.format_exception(failure)[-14:-6])
            failures.append(f"--- {operation.label}\n{type(failure).__name__}: {failure}\n{notes}")
    assert operations > 90 or ONLY, f"only {operations} operations in the schema"
    assert not failures, f"{len(failures)} of {operations} operations failed:\n" + "\n".join(failures)
