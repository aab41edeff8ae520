"""The back office shows a bot's times in the bot's time zone (bots/time_zones.py): a list of one bot's
rows and a row's page; the zone never leaks into the next request; a zone name is checked."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.models import Account, Role
from bots.logs.models import ServerError
from bots.models import Bot
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db
ERROR_AT = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)  # 13:00 in Paris (winter time), 07:00 in New York


def error_of(bot):
    return ServerError.objects.create(
        bot=bot, minute=ERROR_AT, last_at=ERROR_AT, operation="POST chat/talk/{bot_uuid}", status=500, code="X"
    )


@pytest.fixture
def administrator(client):
    account = Account.objects.create(name="Paris bank")
    bot = Bot.objects.create(name="Paris bot", account=account, time_zone="Europe/Paris")
    user, _ = make_persona(account, Role.ADMINISTRATOR)
    client.force_login(user)
    return bot


def test_a_new_bot_has_the_server_s_time_zone(settings):
    settings.TIME_ZONE = "UTC"
    assert Bot.objects.create(name="New").time_zone == "UTC"


def test_the_error_log_shows_the_bot_s_times(client, administrator):
    error_of(administrator)
    page = client.get("/admin/bots/servererror/").content.decode()
    assert "2026-01-15 13:00" in page
    assert "2026-01-15 12:00" not in page


def test_a_list_of_bots_in_several_zones_keeps_the_server_s_until_one_bot_is_chosen(client, administrator):
    other = Bot.objects.create(name="New York bot", account=administrator.account, time_zone="America/New_York")
    error_of(other)
    assert "2026-01-15 12:00" in client.get("/admin/bots/servererror/").content.decode()
    chosen = client.get(f"/admin/bots/servererror/?bot__id__exact={other.pk}").content.decode()
    assert "2026-01-15 07:00" in chosen


def test_a_row_s_page_uses_its_bot_s_zone_and_the_next_request_does_not(client, administrator):
    error = error_of(administrator)
    page = client.get(f"/admin/bots/servererror/{error.pk}/change/").content.decode()
    assert "2026-01-15 13:00" in page  # the English date format (config/formats/en), at the bot's time
    assert "noon" not in page  # 12:00 UTC
    assert timezone.get_current_timezone_name() == "UTC"  # this thread's zone was put back


def test_a_time_zone_name_is_checked():
    with pytest.raises(ValidationError, match="not a time zone name"):
        Bot(name="Mars bot", time_zone="Mars/Olympus_Mons").full_clean()
    Bot(name="Paris bot", time_zone="Europe/Paris").full_clean()


def test_the_bot_page_offers_the_time_zones(client, administrator):
    page = client.get(f"/admin/bots/bot/{administrator.pk}/change/").content.decode()
    assert '<option value="Europe/Paris" selected>' in page
    assert '<option value="America/New_York">' in page
