"""GET logs/{botUUID}: a bot's client error reports and server-side chat errors, by period, kind, code and page,
for the people allowed to read them."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import Role
from bots.logs.models import ServerError
from bots.models import Bot
from dialogs.models import ClientError
from tests.accounts.personas import Persona, make_persona

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def client_report(bot, at, error="TypeError", message="x is undefined"):
    return ClientError.objects.create(bot=bot, error=error, message=message, created_at=at)


def server_error(bot, at, code="MISSING_FIELD", status=400, count=1):
    return ServerError.objects.create(
        bot=bot,
        minute=at.replace(second=0, microsecond=0),
        last_at=at,
        operation="POST chat/feedback/{bot_uuid}",
        status=status,
        code=code,
        message="The field 'contextId' is required.",
        count=count,
    )


def test_an_administrator_reads_what_the_chatbox_reported_and_what_the_server_refused(
    chatbox, log_reader, personas, demo_bot
):
    reported = chatbox.post(
        f"chat/error/{demo_bot.uuid}",
        {"error": "TypeError", "message": "Cannot read properties of undefined", "stackTrace": "at talk (cv5.js:12)"},
    )
    assert reported.status_code == 200
    refused = chatbox.post(f"chat/feedback/{demo_bot.uuid}", {"feedBack": "positive"})
    assert refused.status_code == 400

    page = log_reader.page(personas.alice)

    assert page["total"] == 2 and page["nextPage"] is None
    server, client = page["entries"]  # newest first: the refused feedback came last
    assert server["kind"] == "server"
    assert server["operation"] == "POST chat/feedback/{bot_uuid}"
    assert (server["status"], server["code"], server["count"]) == (400, "MISSING_FIELD", 1)
    assert server["message"] == "The field 'contextUuid' is required."
    assert client["kind"] == "client"
    assert (client["code"], client["message"]) == ("TypeError", "Cannot read properties of undefined")
    assert client["stackTrace"] == "at talk (cv5.js:12)"
    assert page["botUUID"] == str(demo_bot.uuid) and page["kind"] == "all"


def test_an_editor_may_read_the_log_too_and_through_the_api_prefix(client, personas, demo_bot):
    client_report(demo_bot, timezone.now())
    for url in (f"/api/logs/{demo_bot.uuid}", f"/servlet/api/logs/{demo_bot.uuid}/"):
        response = client.get(url, **personas.bob.auth)
        assert response.status_code == 200, response.content
        assert response.json()["total"] == 1


@pytest.mark.parametrize("role", [Role.OPERATOR, Role.READER])
def test_roles_that_do_not_see_server_details_may_not_read_the_log(log_reader, personas, demo_bot, role):
    client_report(demo_bot, timezone.now())
    persona = Persona(*make_persona(personas.account, role))
    response = log_reader.get(persona)
    assert response.status_code == 403
    assert response.json()["code"] == "FORBIDDEN"


def test_another_accounts_administrator_gets_403(log_reader, personas):
    response = log_reader.get(personas.charlie)
    assert response.status_code == 403
    assert "another account" in response.json()["error"]


def test_no_credentials_get_401(log_reader, personas):
    response = log_reader.get()
    assert response.status_code == 401
    assert response.json()["code"] == "MISSING_CREDENTIALS"


@pytest.mark.parametrize("bot_uuid", ["6f1c2b1e-0000-4000-8000-00000000dead", "not-a-uuid"])
def test_an_unknown_bot_gets_404(client, personas, bot_uuid):
    response = client.get(f"/servlet/api/logs/{bot_uuid}", **personas.alice.auth)
    assert response.status_code == 404
    assert response.json()["code"] == "UNKNOWN_BOT"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"from": "yesterday"}, "from"),
        ({"to": "2026-13-01"}, "to"),
        ({"from": "2026-11-22", "to": "2026-11-20"}, "to"),
        ({"from": "2026-11-20T12:00:01Z", "to": "2026-11-20T12:00:00Z"}, "to"),
        ({"from": "0001-01-01T00:00:00+05:00"}, "from"),
        ({"to": "9" * 40}, "to"),
        ({"page": "0"}, "page"),
        ({"page": "two"}, "page"),
        ({"page": "1000001"}, "page"),
        ({"page": "9" * 5000}, "page"),
        ({"pageSize": "0"}, "pageSize"),
        ({"pageSize": "101"}, "pageSize"),
        ({"kind": "everything"}, "kind"),
    ],
)
def test_a_bad_period_page_or_kind_is_a_400_naming_the_field(log_reader, personas, fields, field):
    response = log_reader.get(personas.alice, **fields)
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    assert response.json()["code"] == "INVALID_FIELD"


def test_the_period_keeps_what_happened_from_its_start_to_its_end(log_reader, personas, demo_bot):
    before = client_report(demo_bot, NOON - timedelta(days=2))
    inside_client = client_report(demo_bot, NOON)
    inside_server = server_error(demo_bot, NOON + timedelta(hours=3))
    after = server_error(demo_bot, NOON + timedelta(days=2))

    page = log_reader.page(personas.alice, **{"from": "2026-11-20", "to": "2026-11-20"})  # that whole day
    assert [entry["id"] for entry in page["entries"]] == [inside_server.pk, inside_client.pk]
    assert (page["from"], page["to"]) == ("2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z")

    # Epoch milliseconds (the chatbox's time format) and ISO times with an offset say the same.
    start_ms = int((NOON - timedelta(minutes=1)).timestamp() * 1000)
    page = log_reader.page(personas.alice, **{"from": str(start_ms), "to": "2026-11-20T14:30:00+02:00"})
    assert [entry["id"] for entry in page["entries"]] == [inside_client.pk]

    everything = log_reader.page(personas.alice)
    assert {entry["id"] for entry in everything["entries"]} == {before.pk, inside_client.pk, inside_server.pk, after.pk}


def test_kind_and_code_narrow_the_log(log_reader, personas, demo_bot):
    client_report(demo_bot, NOON, error="TypeError")
    client_report(demo_bot, NOON, error="NetworkError")
    server_error(demo_bot, NOON, code="MISSING_FIELD")
    server_error(demo_bot, NOON, code="INVALID_FIELD", count=7)

    clients = log_reader.page(personas.alice, kind="client")
    assert clients["total"] == 2 and {entry["kind"] for entry in clients["entries"]} == {"client"}
    servers = log_reader.page(personas.alice, kind="server")
    assert servers["total"] == 2 and {entry["kind"] for entry in servers["entries"]} == {"server"}
    invalid = log_reader.page(personas.alice, kind="server", code="INVALID_FIELD")
    assert [(entry["code"], entry["count"]) for entry in invalid["entries"]] == [("INVALID_FIELD", 7)]
    network = log_reader.page(personas.alice, code="NetworkError")
    assert [(entry["kind"], entry["code"]) for entry in network["entries"]] == [("client", "NetworkError")]


def test_pages_cover_the_log_once_newest_first(log_reader, personas, demo_bot):
    made = []
    for minute in range(25):
        at = NOON + timedelta(minutes=minute)
        made.append(
            ("client", client_report(demo_bot, at).pk) if minute % 2 else ("server", server_error(demo_bot, at).pk)
        )
    expected = list(reversed(made))

    seen, page_number, next_pages = [], 1, []
    while page_number is not None:
        page = log_reader.page(personas.alice, pageSize="10", page=str(page_number))
        assert page["total"] == 25 and page["pageSize"] == 10
        seen += [(entry["kind"], entry["id"]) for entry in page["entries"]]
        page_number = page["nextPage"]
        next_pages.append(page_number)

    assert next_pages == [2, 3, None]
    assert seen == expected
    beyond = log_reader.page(personas.alice, pageSize="10", page="4")
    assert (beyond["entries"], beyond["nextPage"], beyond["total"]) == ([], None, 25)


def test_another_bots_errors_never_show(log_reader, personas, demo_bot):
    other = Bot.objects.create(name="Other bot", account=personas.account)
    client_report(other, NOON)
    server_error(other, NOON)
    client_report(demo_bot, NOON)
    page = log_reader.page(personas.alice)
    assert page["total"] == 1


def test_a_page_costs_the_same_queries_whatever_it_holds(log_reader, personas, demo_bot):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_for_a_page() -> int:
        with CaptureQueriesContext(connection) as captured:
            log_reader.page(personas.alice, pageSize="100")
        return len(captured.captured_queries)

    client_report(demo_bot, NOON)
    server_error(demo_bot, NOON)
    queries_for_a_page()  # the token's first use is recorded once
    small = queries_for_a_page()
    for minute in range(1, 40):
        client_report(demo_bot, NOON + timedelta(minutes=minute))
        server_error(demo_bot, NOON + timedelta(minutes=minute))
    assert log_reader.page(personas.alice, pageSize="100")["total"] == 80
    assert queries_for_a_page() == small
