"""No ghost visitors (livechat/visitors.py, the clocks' drop_gone_visitors): a queued or live visitor whose
chatbox neither polled nor held its socket for the bot's grace time leaves the queue, or the live dialog
ends as "visitor left", and the consoles are told; polls and sockets keep a visitor present with at most one
write per dialog every few seconds; a visitor whose chatbox comes back while the dialog is alive is queued
again at the end. Time is moved as in test_timers.py."""

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from livechat import visitors
from livechat.models import LivechatEvent, LivechatRequest, LivechatSettings, Operator
from livechat.timers import sweep
from tests.livechat.conftest import ChatboxSocket, ConsoleSocket

R = LivechatRequest.Status
LEFT = "NAAutoCloseDialogBecauseUserLeft"
LEFT_QUEUE_TEXT = "Vous avez quitté la file d'attente. Je reste à votre disposition."


def ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


def away(visitor, seconds: float):
    """The visitor's chatbox last polled (or held its socket) `seconds` ago; the consoles are open."""
    Operator.objects.exclude(status="offline").update(last_seen_at=timezone.now())
    LivechatRequest.objects.filter(dialog__uuid=visitor.context_id, status__in=[R.QUEUED, R.ASSIGNED]).update(
        visitor_seen_at=ago(seconds)
    )


@pytest.fixture
def busy_team(team):
    """Only Léa answers, one visitor at a time: the second visitor waits in the queue."""
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    return team


@pytest.fixture
def live_and_queued(busy_team, new_visitor):
    live, queued = new_visitor(), new_visitor()
    live.ask_for_human()
    queued.ask_for_human()
    assert (live.live_request().status, queued.live_request().status) == (R.ASSIGNED, R.QUEUED)
    return live, queued


def test_a_queued_visitor_whose_chatbox_closed_leaves_the_queue_after_the_grace_time(live_and_queued):
    _, queued = live_and_queued
    away(queued, 89)
    assert sweep()["gone"] == 0  # 90 s by default
    away(queued, 91)
    done = sweep()

    assert done["gone"] == 1
    request = queued.live_request()
    assert (request.status, request.end_reason) == (R.ENDED, "visitor_gone")
    assert request.dialog.livechat == ""  # back with the bot
    assert not LivechatRequest.objects.filter(status=R.QUEUED).exists()
    # The transcript keeps the moment (the operators read it; a reload's history shows it).
    line = request.dialog.interactions.order_by("-pk").first()
    assert (line.type_response, line.answer) == (LEFT, LEFT_QUEUE_TEXT)
    assert sweep()["gone"] == 0  # once


def test_a_live_visitor_whose_chatbox_closed_ends_the_dialog_and_frees_the_operator(live_and_queued, busy_team):
    live, queued = live_and_queued
    away(live, 91)

    assert sweep()["gone"] == 1

    ended = live.live_request()
    assert (ended.status, ended.end_reason) == (R.ENDED, "visitor_gone")
    assert ended.dialog.interactions.order_by("-pk").first().type_response == LEFT
    # Léa's slot is free: the waiting visitor gets her.
    taken = queued.live_request()
    assert (taken.status, taken.operator_id) == (R.ASSIGNED, busy_team.lea.pk)
    assert Operator.objects.get(pk=busy_team.lea.pk).active_dialogs == 1


def test_the_grace_time_is_the_bots_and_0_never_drops(live_and_queued, demo_bot):
    _, queued = live_and_queued
    rules = LivechatSettings.objects.get(bot=demo_bot)  # made with the bot
    rules.visitor_gone_seconds = 200
    rules.save()
    away(queued, 150)
    assert sweep()["gone"] == 0
    rules.visitor_gone_seconds = 0
    rules.save()
    away(queued, 3600)
    assert sweep()["gone"] == 0
    assert queued.live_request().status == R.QUEUED
    rules.visitor_gone_seconds = 200
    rules.save()
    assert sweep()["gone"] == 1


def test_polling_keeps_the_visitor_present_with_one_write_every_ten_seconds(live_and_queued, monkeypatch):
    _, queued = live_and_queued
    away(queued, 85)
    clock = [1000.0]
    monkeypatch.setattr(visitors.time, "monotonic", lambda: clock[0])

    with CaptureQueriesContext(connection) as queries:
        for _ in range(8):  # 20 s of CV5's 2.5 s polls
            queued.poll()
            clock[0] += 2.5
    writes = [q for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert len(writes) == 2  # at 0 s and 10 s

    assert timezone.now() - queued.live_request().visitor_seen_at < timedelta(seconds=60)
    assert sweep(timezone.now() + timedelta(seconds=30))["gone"] == 0


def test_a_visitor_who_comes_back_is_queued_again_at_the_end(live_and_queued, new_visitor):
    _, queued = live_and_queued
    away(queued, 91)
    sweep()
    dropped = queued.live_request()
    other = new_visitor()
    other.ask_for_human()  # someone else joined the queue meanwhile

    # The chatbox polls again (a phone woken up) with what it had before the drop.
    back = queued.poll()

    assert (back["code"], back["specialAction"], back["queuePosition"]) == (
        "NAWaitingForOperator",
        "StartWaitingQueue",
        2,
    )
    again = queued.live_request()
    assert again.pk != dropped.pk and again.status == R.QUEUED and again.dialog.livechat == "queued"
    # The notice of the drop, never delivered, is withdrawn; the dropped request stays counted as missed.
    assert not LivechatEvent.objects.filter(request=dropped, code=LEFT).exists()
    dropped.refresh_from_db()
    assert (dropped.status, dropped.end_reason) == (R.ENDED, "visitor_gone")
    assert queued.poll() == {}
    assert LivechatRequest.objects.filter(dialog__uuid=queued.context_id, status=R.QUEUED).count() == 1
    # A reload's history shows the visitor waiting again.
    history = queued.values(queued.post(f"chat/history/{queued.bot}", {"contextUuid": queued.context_id}))
    assert history["interactions"][-1]["type"] == "DMLiveChatConnectionInQueue"


def test_a_live_visitor_who_comes_back_gets_an_operator_again(live_and_queued, busy_team):
    live, _ = live_and_queued
    away(live, 91)
    sweep()  # Léa's freed slot goes to the waiting visitor
    assert live.live_request().end_reason == "visitor_gone"
    Operator.objects.filter(pk=busy_team.lea.pk).update(max_dialogs=2)

    events = live.poll_all()

    # Queued again, then taken at once (the queue notice, stale behind it, is skipped by the poll).
    assert [event["code"] for event in events] == ["DialogAddedOperatorPanel"]
    assert (live.live_request().status, live.live_request().operator_id) == (R.ASSIGNED, busy_team.lea.pk)


def test_with_nobody_to_come_back_to_the_chatbox_gets_the_drop_and_stays_with_the_bot(live_and_queued):
    _, queued = live_and_queued
    away(queued, 91)
    sweep()
    Operator.objects.update(status="offline")

    notice = queued.poll()
    assert (notice["typeResponse"], notice["text"]) == (LEFT, LEFT_QUEUE_TEXT)
    Operator.objects.update(status="available")
    assert queued.poll() == {}  # it showed the drop (and stopped live chat): not queued again
    assert queued.live_request().status == R.ENDED


def test_a_visitor_who_talked_with_the_bot_since_is_not_queued_again(live_and_queued):
    _, queued = live_and_queued
    away(queued, 91)
    sweep()
    dropped = queued.live_request()
    queued.talk("Quels sont vos horaires d'ouverture ?")

    queued.poll()

    assert queued.live_request().pk == dropped.pk


pytestmark_sockets = pytest.mark.django_db(transaction=True)


def run(scenario):
    return async_to_sync(scenario)()


@pytestmark_sockets
def test_the_consoles_are_told_when_a_visitor_closes_the_chatbox(live_and_queued, busy_team):
    live, queued = live_and_queued
    waiting = queued.live_request()
    held = live.live_request()

    async def scenario():
        console = await ConsoleSocket(busy_team.lea).open()
        await console.until("state")
        await database_sync_to_async(away)(queued, 91)
        await database_sync_to_async(sweep)()
        left_queue = await console.until("ended")
        await database_sync_to_async(away)(live, 91)
        await database_sync_to_async(sweep)()
        left_dialog = await console.until("ended")
        await console.close()
        return left_queue, left_dialog

    left_queue, left_dialog = run(scenario)
    assert (left_queue["dialog"], left_queue["reason"], left_queue["text"]) == (
        waiting.pk,
        "visitor_gone",
        LEFT_QUEUE_TEXT,
    )
    assert (left_dialog["dialog"], left_dialog["reason"]) == (held.pk, "visitor_gone")
    # The operator's dialog ends with its notice line, the one the transcript keeps.
    assert left_dialog["line"]["text"] == held.dialog.interactions.order_by("-pk").first().answer


@pytestmark_sockets
def test_an_open_socket_keeps_its_visitor_present_and_a_closed_one_does_not(live_and_queued, monkeypatch):
    _, queued = live_and_queued
    monkeypatch.setattr(visitors, "SEEN_WRITE_SECONDS", 0.05)
    monkeypatch.setattr(visitors, "SOCKET_BEAT_SECONDS", 0.02)
    request = queued.live_request()
    LivechatRequest.objects.filter(pk=request.pk).update(visitor_seen_at=ago(80))

    def seen_at():
        return LivechatRequest.objects.get(pk=request.pk).visitor_seen_at

    async def scenario():
        socket = await ChatboxSocket(queued.bot).open()
        await socket.follow(queued.context_id)  # CV5's first frame on its live-chat socket
        first = await database_sync_to_async(seen_at)()
        for _ in range(200):  # the socket's beat writes again while it is open
            if await database_sync_to_async(seen_at)() > first:
                break
            await socket.nothing(0.05)
        beaten = await database_sync_to_async(seen_at)()
        await socket.close()
        closed = await database_sync_to_async(seen_at)()
        await asyncio.sleep(0.3)  # many beats' worth, were anything still beating
        return first, beaten, closed, await database_sync_to_async(seen_at)()

    first, beaten, closed, after = run(scenario)
    assert timezone.now() - first < timedelta(seconds=60)
    assert beaten > first
    assert after == closed  # nothing keeps a closed socket's visitor present


@pytestmark_sockets
def test_a_socket_that_comes_back_queues_its_visitor_again(live_and_queued):
    _, queued = live_and_queued
    away(queued, 91)
    sweep()

    async def scenario():
        socket = await ChatboxSocket(queued.bot).open()
        checked = await socket.follow(queued.context_id)
        notice = await socket.frame()  # the queue notice, pushed to the dialog's group it joined
        await socket.close()
        return checked, notice

    checked, notice = run(scenario)
    assert checked["type"] == "checkContextAvailabilityResponse"
    assert queued.live_request().status == R.QUEUED
    assert notice["code"] == "NAWaitingForOperator"
