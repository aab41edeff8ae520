"""A page of the log holding both kinds of entries answers exactly as the API console documents it (the fuzzer
mostly meets empty logs): checked by schemathesis against the served schema, as tests/fuzz checks."""

from datetime import timedelta

import pytest
import schemathesis
from django.utils import timezone

from bots.logs.models import ServerError
from dialogs.models import ClientError
from tests.fuzz.conftest import CHECKS, SCHEMA_PATH, target, wsgi_app  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db
LOG_PATH = "/servlet/api/logs/{bot_uuid}/"  # as the schema writes it


def test_a_page_with_both_kinds_matches_the_documented_answer(wsgi_app, target):  # noqa: F811 (fixtures)
    bot = target.bot
    now = timezone.now()
    ClientError.objects.create(bot=bot, error="TypeError", message="boom", stack_trace="at x", created_at=now)
    ServerError.objects.create(
        bot=bot,
        minute=now.replace(second=0, microsecond=0),
        last_at=now,
        operation="POST chat/talk/{bot_uuid}",
        status=400,
        code="INVALID_FIELD",
        message="The field 'variables' is invalid: not valid JSON.",
        count=4,
    )
    operation = schemathesis.openapi.from_wsgi(SCHEMA_PATH, wsgi_app)[LOG_PATH]["GET"]
    start = (now - timedelta(hours=1)).isoformat()

    answers = {}
    for name, query, headers in [
        ("both", {}, {"Authorization": target.token()}),
        ("one per page", {"from": start, "kind": "all", "page": 1, "pageSize": 1}, {"Authorization": target.token()}),
        ("none", {"kind": "server", "code": "NO_SUCH_CODE"}, {"Authorization": target.token()}),
        ("bad page", {"page": 0}, {"Authorization": target.token()}),
        ("no token", {}, {}),
    ]:
        case = operation.Case(path_parameters={"bot_uuid": str(bot.uuid)}, query=query, headers=headers)
        response = case.call()
        case.validate_response(response, checks=CHECKS)
        answers[name] = response

    assert [entry["kind"] for entry in answers["both"].json()["entries"]] == ["server", "client"]
    assert answers["one per page"].json()["nextPage"] == 2
    assert answers["none"].json()["entries"] == []
    assert (answers["bad page"].status_code, answers["no token"].status_code) == (400, 401)
