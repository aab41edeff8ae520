"""Retention: `dialogs.retention.days` per bot, and `manage.py purge_dialogs` deleting the older dialogs
with all that hangs on them, keeping the recent ones, logging and recording each purge."""

import logging
from datetime import timedelta
from io import StringIO
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.utils import timezone

from bots.models import Bot
from dialogs.models import ClientError, Dialog, DialogPurge, Interaction, Visit
from livechat.models import Callback, LivechatEvent, LivechatRequest

from .conftest import make_dialog

PREFERENCE = "/servlet/api/preferences/bot/{bot}/dialogs.retention.days/{days}"


def set_retention(client, bot, persona, days) -> int:
    return client.put(PREFERENCE.format(bot=bot.uuid, days=days), **persona.auth).status_code


def aged(bot, days: int, **fields) -> Dialog:
    started = timezone.now() - timedelta(days=days)
    return make_dialog(bot, started, language="fr", exchanges=[("q1", "a1", {}), ("q2", "a2", {})], **fields)


@pytest.fixture
def old_and_recent(demo_bot, personas):
    old, recent = aged(demo_bot, 40), aged(demo_bot, 10)
    for dialog in (old, recent):
        Visit.objects.create(bot=demo_bot, context_id=str(dialog.uuid), language="fr")
        ClientError.objects.create(bot=demo_bot, context_id=str(dialog.uuid), error="TypeError", message="x")
    request = LivechatRequest.objects.create(dialog=old, bot=demo_bot, account=personas.account)
    LivechatEvent.objects.create(dialog=old, request=request, at_ms=1, frame_type="talkResponse")
    callback = Callback.objects.create(bot=demo_bot, dialog=old, phone="+33100000000")
    return old, recent, callback


def test_old_dialogs_go_with_all_that_hangs_on_them_recent_ones_stay(
    client, demo_bot, personas, old_and_recent, caplog
):
    old, recent, callback = old_and_recent
    assert set_retention(client, demo_bot, personas.alice, 30) == 200
    out = StringIO()
    with caplog.at_level(logging.INFO, logger="dialogs.retention"):
        call_command("purge_dialogs", stdout=out)

    assert list(Dialog.objects.filter(bot=demo_bot)) == [recent]
    assert Interaction.objects.filter(dialog_id=old.pk).count() == 0
    assert Interaction.objects.filter(dialog=recent).count() == 2
    assert [v.context_id for v in Visit.objects.all()] == [str(recent.uuid)]
    assert [e.context_id for e in ClientError.objects.all()] == [str(recent.uuid)]
    assert not LivechatRequest.objects.exists() and not LivechatEvent.objects.exists()
    callback.refresh_from_db()
    assert callback.dialog is None  # the visitor's call-back request is the operators' to close

    summary = out.getvalue()
    assert f"bot {demo_bot.uuid}" in summary and "retention 30 days" in summary
    assert "1 dialogs, 2 interactions deleted" in summary
    logged = [r for r in caplog.records if r.name == "dialogs.retention" and r.levelno == logging.INFO]
    assert len(logged) == 1 and "1 dialogs, 2 interactions deleted" in logged[0].getMessage()

    purge = DialogPurge.objects.get()
    assert (purge.bot, purge.retention_days, purge.dialogs, purge.interactions) == (demo_bot, 30, 1, 2)
    assert purge.details == {
        "dialogs.Dialog": 1,
        "dialogs.Interaction": 2,
        "dialogs.Visit": 1,
        "dialogs.ClientError": 1,
        "livechat.LivechatRequest": 1,
        "livechat.LivechatEvent": 1,
    }
    assert abs(purge.cutoff - (timezone.now() - timedelta(days=30))) < timedelta(minutes=1)


def test_a_bot_without_retention_keeps_everything(client, demo_bot, personas, old_and_recent):
    other = Bot.objects.create(name="Keeper", default_language="fr")
    ancient = aged(other, 3000)
    out = StringIO()
    call_command("purge_dialogs", stdout=out)
    assert "nothing purged" in out.getvalue()
    assert Dialog.objects.filter(bot=demo_bot).count() == 2 and Dialog.objects.filter(pk=ancient.pk).exists()
    assert not DialogPurge.objects.exists()

    assert set_retention(client, demo_bot, personas.alice, 0) == 200
    call_command("purge_dialogs", stdout=StringIO())
    assert Dialog.objects.filter(bot=demo_bot).count() == 2


def test_one_bot_only_and_in_batches(client, demo_bot, personas, settings):
    other = Bot.objects.create(name="Other", default_language="fr")
    for bot in (demo_bot, other):
        from preferences.services import Owner, set_preference

        set_preference(Owner(bot=bot), "dialogs.retention.days", "7")
    many = [aged(demo_bot, 8 + n) for n in range(7)]
    kept_elsewhere = aged(other, 30)
    from dialogs.bulk import retention

    report = retention.purge_bot(demo_bot, batch_size=3)  # three batches: 3, 3, 1
    assert report.dialogs == 7 and report.interactions == 14
    assert not Dialog.objects.filter(pk__in=[d.pk for d in many]).exists()
    assert Dialog.objects.filter(pk=kept_elsewhere.pk).exists()

    call_command("purge_dialogs", "--bot", str(other.uuid), stdout=StringIO())
    assert not Dialog.objects.filter(pk=kept_elsewhere.pk).exists()


@pytest.mark.parametrize("value", ["-1", "ten", "36501", "1.5", "٣"])
def test_a_retention_that_is_not_whole_days_is_refused(client, demo_bot, personas, value):
    response = client.put(
        f"/servlet/api/preferences/bot/{demo_bot.uuid}/dialogs.retention.days",
        f"value={quote(value)}",
        content_type="application/x-www-form-urlencoded",
        **personas.alice.auth,
    )
    assert response.status_code == 400 and response.json()["code"] == "INVALID_FIELD"
    assert set_retention(client, demo_bot, personas.alice, " 045 ") == 200
    assert (
        client.get(
            f"/servlet/api/preferences/bot/{demo_bot.uuid}/dialogs.retention.days", **personas.alice.auth
        ).json()["value"]
        == "45"
    )
