"""Live chat's clocks (livechat.timers.sweep, run every few seconds by each server process): a silent
visitor is warned then the dialog closes; a silent operator's dialog goes to another operator; a dead
console's operator goes offline and their visitors are told and moved; nobody takes a queued visitor."""

from datetime import timedelta

import pytest
from django.utils import timezone

from livechat import operating
from livechat.models import LivechatRequest, Operator
from livechat.timers import sweep

R = LivechatRequest.Status


def later(seconds: int):
    return timezone.now() + timedelta(seconds=seconds)


@pytest.fixture
def live(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    return visitor, request, operator


def everyone_here(at):
    """Consoles and chatboxes stay open up to `at`: only the clock under test acts."""
    Operator.objects.exclude(status="offline").update(last_seen_at=at)
    LivechatRequest.objects.filter(status__in=[R.QUEUED, R.ASSIGNED]).update(visitor_seen_at=at)


def test_a_silent_visitor_is_warned_then_the_dialog_closes(live):
    visitor, request, operator = live
    operating.send_message(operator, request.pk, "Pouvez-vous me donner votre numéro de client ?")
    visitor.poll()

    everyone_here(later(200))
    assert sweep(later(200))["warned"] == 0  # 300 s allowed, warned 60 s before
    everyone_here(later(245))
    assert sweep(later(245))["warned"] == 1
    warning = visitor.poll()
    assert warning["code"] == "AlmostTimedOut"
    assert "55 secondes" in warning["text"]
    assert sweep(later(246))["warned"] == 0  # once

    everyone_here(later(301))
    assert sweep(later(301))["closed"] == 1
    closed = visitor.poll()
    assert closed["typeResponse"] == "NAAutoCloseDialog"
    request.refresh_from_db()
    assert (request.status, request.end_reason) == (R.ENDED, "visitor_inactive")
    assert Operator.objects.get(pk=operator.pk).active_dialogs == 0


def test_a_visitor_who_answers_is_not_closed(live):
    visitor, request, operator = live
    operating.send_message(operator, request.pk, "Votre numéro de client ?")
    everyone_here(later(250))
    sweep(later(250))
    visitor.write("123456")  # the visitor's turn is over: the operator's clock runs now
    everyone_here(later(400))
    assert sweep(later(400))["closed"] == 0
    request.refresh_from_db()
    assert request.status == R.ASSIGNED


def test_a_silent_operator_dialog_is_transferred_automatically(team, live):
    visitor, request, operator = live
    visitor.write("Bonjour ? Il y a quelqu'un ?")
    everyone_here(later(181))
    assert sweep(later(181))["transferred"] == 1
    request.refresh_from_db()
    assert request.operator_id != operator.pk
    assert request.transfers == 1
    notice = visitor.poll()
    assert notice["code"] == "DialogTransferredAutomatically"


def test_a_silent_operator_keeps_the_dialog_when_nobody_else_can_take_it(team, live):
    visitor, request, operator = live
    Operator.objects.exclude(pk=operator.pk).update(status="offline")
    visitor.write("Bonjour ?")
    everyone_here(later(181))
    assert sweep(later(181))["transferred"] == 0
    request.refresh_from_db()
    assert request.operator_id == operator.pk


def test_a_dead_console_sends_its_visitors_to_another_operator(team, live):
    visitor, request, operator = live
    other = team.marc if operator == team.lea else team.lea
    Operator.objects.filter(pk=other.pk).update(last_seen_at=later(40))  # the other console is alive
    done = sweep(later(40))  # grace period: 30 s without a heartbeat

    assert done["disconnected"] == 1
    assert Operator.objects.get(pk=operator.pk).status == "offline"
    events = visitor.poll_all()
    assert [e["code"] for e in events] == ["OperatorDisconnected", "DialogTransferredAutomatically"]
    request.refresh_from_db()
    assert (request.status, request.operator_id) == (R.ASSIGNED, other.pk)


def test_a_dead_console_with_nobody_else_sends_its_visitors_back_to_the_queue(team, live):
    visitor, request, operator = live
    Operator.objects.exclude(pk=operator.pk).update(status="offline")
    sweep(later(40))
    request.refresh_from_db()
    assert (request.status, request.operator_id) == (R.QUEUED, None)
    assert request.dialog.livechat == "queued"
    codes = [e.get("code") for e in visitor.poll_all()]
    assert codes[0] == "OperatorDisconnected"
    assert codes[-1] == "NAWaitingForOperator"
    # A chatbox that reloads sees from its history that it waits again.
    history = visitor.values(visitor.post(f"chat/history/{visitor.bot}", {"contextUuid": visitor.context_id}))
    assert history["interactions"][-1]["type"] == "DMLiveChatConnectionInQueue"
    # When the operator's console comes back and they are available again, they get it back.
    from livechat import presence

    presence.heartbeat(operator, later(41))
    presence.set_status(operator, "available", later(41))
    request.refresh_from_db()
    assert (request.status, request.operator_id) == (R.ASSIGNED, operator.pk)


def test_a_visitor_nobody_takes_leaves_the_queue_after_the_timeout(team, new_visitor):
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    first, waiting = new_visitor(), new_visitor()
    first.ask_for_human()
    waiting.ask_for_human()
    first.write("toujours là")  # the first dialog is busy, not silent
    everyone_here(later(901))
    done = sweep(later(901))
    assert done["timed_out_in_queue"] == 1
    closing = waiting.poll_all()[-1]
    assert closing["typeResponse"] == "NAAutoCloseDialog"
    assert "Aucun conseiller" in closing["text"]
    assert waiting.live_request().end_reason == "queue_timeout"


def test_a_sweep_twice_at_once_acts_once(live):
    _visitor, request, operator = live
    operating.send_message(operator, request.pk, "Votre numéro ?")
    everyone_here(later(250))
    assert sweep(later(250))["warned"] + sweep(later(250))["warned"] == 1
