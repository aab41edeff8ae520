"""The error logs in the back office: read-only lists of server errors and client error reports, filtered
by bot, kind and date, each user seeing only their account's bots, for the roles that may read logs."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Account, Role
from bots.logs.models import ServerError
from bots.models import Bot
from dialogs.models import ClientError
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db

SERVER_LIST = "/admin/bots/servererror/"
CLIENT_LIST = "/admin/dialogs/clienterror/"
MONDAY = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)
FRIDAY = datetime(2026, 11, 27, 16, 5, tzinfo=UTC)


@pytest.fixture
def logs(demo_bot):
    """Errors of the demo bot on two days, and of another account's bot."""
    other = Bot.objects.create(name="Banque Concurrente", account=Account.objects.create(name="Account B"))
    rows = {
        "monday": server_error(demo_bot, MONDAY, 400, "MISSING_FIELD"),
        "friday": server_error(demo_bot, FRIDAY, 404, "UNKNOWN_CONTEXT"),
        "other": server_error(other, MONDAY, 400, "SOMEONE_ELSES_CODE"),
        "report": ClientError.objects.create(bot=demo_bot, error="TypeError", message="talk failed", created_at=MONDAY),
        "other_report": ClientError.objects.create(
            bot=other, error="SomeoneElsesError", message="not yours", created_at=MONDAY
        ),
    }
    return rows


def server_error(bot, at, status, code):
    return ServerError.objects.create(
        bot=bot,
        minute=at.replace(second=0),
        last_at=at,
        operation="POST chat/talk/{bot_uuid}",
        status=status,
        code=code,
        message=f"{code} message",
        count=3,
    )


def results(response) -> str:
    """The list's rows only (the filters in the side bar name every code and bot the user may see)."""
    assert response.status_code == 200
    page = response.content.decode()
    start = page.index('id="result_list"')
    return page[start : page.index("</table>", start)]


def staff_of(account, role):
    user, _ = make_persona(account, role)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


def test_a_superuser_filters_server_errors_by_bot_kind_and_date(client, logs, demo_bot):
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", "pw-for-tests-only"))
    everything = results(client.get(SERVER_LIST))
    assert "MISSING_FIELD" in everything and "UNKNOWN_CONTEXT" in everything and "SOMEONE_ELSES_CODE" in everything

    by_bot = results(client.get(SERVER_LIST, {"bot__id__exact": demo_bot.pk}))
    assert "SOMEONE_ELSES_CODE" not in by_bot and "MISSING_FIELD" in by_bot
    by_code = results(client.get(SERVER_LIST, {"code": "UNKNOWN_CONTEXT"}))
    assert "UNKNOWN_CONTEXT" in by_code and "MISSING_FIELD" not in by_code
    by_status = results(client.get(SERVER_LIST, {"status__exact": "404"}))
    assert "UNKNOWN_CONTEXT" in by_status and "MISSING_FIELD" not in by_status
    friday = results(client.get(SERVER_LIST, {"minute__day": "27", "minute__month": "11", "minute__year": "2026"}))
    assert "UNKNOWN_CONTEXT" in friday and "MISSING_FIELD" not in friday
    reports = results(client.get(CLIENT_LIST, {"error": "TypeError"}))
    assert "talk failed" in reports and "not yours" not in reports


def test_an_editor_sees_only_their_accounts_logs(client, logs, demo_bot):
    client.force_login(staff_of(demo_bot.account, Role.EDITOR))
    servers = client.get(SERVER_LIST)
    assert servers.status_code == 200
    page = servers.content.decode()
    assert "MISSING_FIELD" in page and "UNKNOWN_CONTEXT" in page
    assert "SOMEONE_ELSES_CODE" not in page and "Banque Concurrente" not in page  # not even in the bot filter
    clients = client.get(CLIENT_LIST).content.decode()
    assert "TypeError" in clients and "SomeoneElsesError" not in clients
    # Another account's row is not reachable by its address either.
    assert client.get(f"{SERVER_LIST}{logs['other'].pk}/change/").status_code == 302
    index = client.get("/admin/").content.decode()
    assert SERVER_LIST in index and CLIENT_LIST in index


def test_the_lists_are_read_only(client, logs, demo_bot):
    client.force_login(staff_of(demo_bot.account, Role.ADMINISTRATOR))
    row = logs["monday"]
    page = client.get(f"{SERVER_LIST}{row.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.get(f"{SERVER_LIST}add/").status_code == 403
    assert client.post(f"{SERVER_LIST}{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.post(f"{CLIENT_LIST}{logs['report'].pk}/delete/", {"post": "yes"}).status_code == 403
    assert ServerError.objects.filter(pk=row.pk).exists() and ClientError.objects.filter(pk=logs["report"].pk).exists()


@pytest.mark.parametrize("role", [Role.READER, Role.OPERATOR])
def test_roles_that_may_not_read_logs_do_not_see_them(client, logs, demo_bot, role):
    client.force_login(staff_of(demo_bot.account, role))
    assert client.get(SERVER_LIST).status_code == 403
    assert client.get(CLIENT_LIST).status_code == 403
    index = client.get("/admin/").content.decode()
    assert SERVER_LIST not in index and CLIENT_LIST not in index
