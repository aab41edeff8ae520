"""The queue under a rush (issue 23 item 5), each call in its own thread with its own database connection,
all released at the same instant, on CI's PostgreSQL run (the calls really overlap there, and the
account's lock serialises them). The same rush on a SQLite file, through real server processes, is in
test_queue_race_processes.py.

- 20 visitors ask for a human through the REST chat talk; two available operators with 3 slots each
  and 3 queue places per operator: 6 visitors are connected, 6 wait at places 1 to 6 (no place twice,
  never more than the room), the other 8 hear that nobody is available; no operator holds more than
  their limit; the database, the answers and the places pushed afterwards agree.
- The queue moving while visitors arrive: visitors leave it, an operator ends dialogs and takes one,
  another goes offline, the clocks run, new visitors ask; every call is answered (no deadlock), the
  places stored are 1..n in the queue's order, the last place pushed to each waiting visitor is the
  one stored, nobody waits while an operator has room, and the slot counters match the dialogs held."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from livechat import operating, presence, timers
from livechat.models import LivechatRequest, Operator

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor == "sqlite",
        reason="SQLite's test database is in memory with a shared cache, where a thread reading a table that "
        "another thread's open transaction wrote fails at once ('database table is locked'), as a SQLite file "
        "in WAL mode (as served) never does; test_queue_race_processes.py runs the rush on a SQLite file",
    ),
]

R = LivechatRequest.Status
VISITORS = 20
SLOTS = 3  # each operator's max_dialogs (the team fixture's)
PLACES_PER_OPERATOR = 3  # queue_per_operator's default
# How long a thread waits for the others at the barrier before the test gives up (never a measure of speed).
PATIENCE_SECONDS = 120


def together(calls) -> list:
    """Run the calls at the same instant, each in a thread of its own; their results (or exceptions)."""
    start = threading.Barrier(len(calls))

    def run(call):
        try:
            start.wait(timeout=PATIENCE_SECONDS)
            return call()
        except Exception as error:  # kept for the test to look at
            return error
        finally:
            connection.close()  # this thread's own connection (back to the pool on PostgreSQL)

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def ask_together(visitors) -> list[dict]:
    answers = together([visitor.ask_for_human for visitor in visitors])
    assert not [answer for answer in answers if isinstance(answer, Exception)], answers
    return answers


def queue_notices(visitor) -> list[dict]:
    return [event for event in visitor.poll_all() if event.get("code") == "NAWaitingForOperator"]


def last_place_told(visitor, answer: dict) -> int:
    """The place the visitor's chatbox shows now: the latest queue notice pushed, else the talk's answer."""
    notices = queue_notices(visitor)
    return notices[-1]["queuePosition"] if notices else answer.get("queuePosition")


@pytest.mark.parametrize("run", range(3))
def test_a_rush_of_visitors_gets_places_one_to_n_and_never_more_than_the_room(team, new_visitor, run):
    operators = [team.lea, team.marc]  # Sam is offline
    visitors = [new_visitor() for _ in range(VISITORS)]
    for visitor in visitors:
        visitor.talk("Bonjour")  # each visitor's dialog is open: the rush is the handover only

    answers = ask_together(visitors)

    connected = [
        v for v, a in zip(visitors, answers, strict=True) if a["typeResponse"] == "DMLiveChatConnectionSucceed"
    ]
    waiting = [(v, a) for v, a in zip(visitors, answers, strict=True) if a.get("specialAction") == "StartWaitingQueue"]
    refused = [v for v, a in zip(visitors, answers, strict=True) if "Aucun conseiller n'est disponible" in a["text"]]
    room = PLACES_PER_OPERATOR * len(operators)
    places = sorted(answer["queuePosition"] for _, answer in waiting)
    assert places == list(range(1, len(waiting) + 1)), places
    assert len(waiting) == room
    assert len(connected) == SLOTS * len(operators)
    assert len(refused) == VISITORS - len(connected) - len(waiting)

    # The database agrees: each operator holds what their counter says, within their limit…
    for operator in Operator.objects.filter(pk__in=[o.pk for o in operators]):
        held = LivechatRequest.objects.filter(operator=operator, status=R.ASSIGNED).count()
        assert operator.active_dialogs == held == SLOTS
    assert {v.live_request().status for v in connected} == {R.ASSIGNED}
    # Refused ones are only counted as missed requests (ended at once), never queued nor assigned.
    assert all(v.live_request().end_reason == "nobody_available" for v in refused)
    # … the queue holds the waiting visitors at the places they were told, in the queue's order…
    queued = list(
        LivechatRequest.objects.filter(status=R.QUEUED).order_by("queued_at", "pk").values_list("pk", "queue_position")
    )
    assert [place for _, place in queued] == list(range(1, room + 1))
    told = {v.live_request().pk: answer["queuePosition"] for v, answer in waiting}
    assert dict(queued) == told
    # … a later place never waits less…
    waits = [answer["estimatedWaitingDuration"] for _, answer in sorted(waiting, key=lambda w: w[1]["queuePosition"])]
    assert waits == sorted(waits)
    # … and a place pushed to a waiting visitor afterwards (the queue moving) is the one the database holds.
    for visitor, answer in waiting:
        assert last_place_told(visitor, answer) == visitor.live_request().queue_position


def test_the_queue_moving_during_a_rush_keeps_places_slots_and_pushes_in_step(team, new_visitor):
    first = [new_visitor() for _ in range(12)]
    answers = {visitor: visitor.ask_for_human() for visitor in first}  # one after the other
    held_by_lea = [v.live_request().pk for v in first if v.live_request().operator_id == team.lea.pk]
    waiting = [v for v in first if v.live_request().status == R.QUEUED]
    assert len(held_by_lea) == SLOTS and len(waiting) == PLACES_PER_OPERATOR * 2
    newcomers = [new_visitor() for _ in range(8)]
    for visitor in newcomers:
        visitor.talk("Bonjour")

    def take_the_last_waiting():
        try:
            return operating.take(team.lea, waiting[-1].live_request().pk)
        except operating.Conflict as refused:  # full, or the dialog left the queue: both are answers
            return refused.code

    calls = [
        *[lambda v=v: v.talk("#livechatleavequeue#") for v in waiting[:3]],
        *[lambda pk=pk: operating.end(team.lea, pk) for pk in held_by_lea[:2]],
        lambda: presence.set_status(team.marc, "offline"),
        take_the_last_waiting,
        timers.sweep,
        *[visitor.ask_for_human for visitor in newcomers],
    ]
    results = together(calls)

    assert not [result for result in results if isinstance(result, Exception)], results
    answers.update(zip(newcomers, results[-len(newcomers) :], strict=True))
    for operator in Operator.objects.filter(pk__in=[team.lea.pk, team.marc.pk]):
        held = LivechatRequest.objects.filter(operator=operator, status=R.ASSIGNED).count()
        assert operator.active_dialogs == held <= operator.max_dialogs
    lea = Operator.objects.get(pk=team.lea.pk)
    assert Operator.objects.get(pk=team.marc.pk).active_dialogs == 0  # offline: his visitors went on
    queued = list(
        LivechatRequest.objects.filter(status=R.QUEUED).order_by("queued_at", "pk").values_list("pk", "queue_position")
    )
    assert [place for _, place in queued] == list(range(1, len(queued) + 1))
    assert not queued or lea.active_dialogs == lea.max_dialogs  # nobody waits while Léa has room
    places = dict(queued)
    for visitor, answer in answers.items():
        live = visitor.live_request()
        if live is not None and live.status == R.QUEUED:
            assert last_place_told(visitor, answer) == places[live.pk]
