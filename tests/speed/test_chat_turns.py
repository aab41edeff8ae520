"""The chat gate's turns (bots/servlet/turns.py): they widen while talks queue and the process's core idles
(talks waiting on the database), narrow back when the core is busy or nobody waits, never past their
bounds; waiting calls keep their arrival order, a widened gate lets the next ones in at once, and a call
that gives up while waiting or just as its turn came never loses a turn. Then the real ASGI app: talks
that wait on a slow database run more at once than the base width."""

import asyncio
import time

import pytest

from bots.servlet.turns import Turns, Width, machine_idle


class Clock:
    """A wall clock, the process's CPU clock and the machine's idle time, moved by the test by hand."""

    def __init__(self):
        self.wall = 0.0
        self.cpu = 0.0
        self.idle = 0.0

    def spend(self, seconds: float, busy: float, machine_idle: float = 0.5) -> None:
        """`seconds` pass, during which the process uses `busy` of a core and the machine's cores are idle
        `machine_idle` of the time."""
        self.wall += seconds
        self.cpu += seconds * busy
        self.idle += seconds * machine_idle


def width(clock: Clock, base=2, ceiling=6) -> Width:
    return Width(
        base,
        ceiling,
        target=0.85,
        period=0.2,
        clock=lambda: clock.wall,
        cpu=lambda: clock.cpu,
        idle=lambda: (clock.idle, clock.wall),
    )


def test_it_widens_while_talks_queue_and_the_core_idles_then_narrows_back():
    clock = Clock()
    sized = width(clock)
    for expected in (3, 4, 5, 6, 6):  # waiting on the database: 30 % of a core used, talks queued
        sized.saw_queue()
        clock.spend(0.25, busy=0.3)
        assert sized.update() == expected
    clock.spend(0.1, busy=0.98)
    assert sized.update() == 6  # not a whole period yet: unchanged
    sized.saw_queue()
    clock.spend(0.25, busy=0.98)  # the core is busy now: more at once would only take turns
    assert sized.update() == 5
    sized.saw_queue()
    clock.spend(0.25, busy=0.88)  # busy enough, queued: it holds
    assert sized.update() == 5
    for expected in (4, 3, 2, 2):  # nobody waits any more: back to the base, never below
        clock.spend(0.25, busy=0.2)
        assert sized.update() == expected


def test_a_busy_machine_never_widens_the_gate():
    """Talks that wait for a core (other processes hold them), not for the database: no wider."""
    clock = Clock()
    sized = width(clock)
    sized.saw_queue()
    clock.spend(0.25, busy=0.3, machine_idle=0.5)
    assert sized.update() == 3
    for expected in (2, 2, 2):
        sized.saw_queue()
        clock.spend(0.25, busy=0.3, machine_idle=0.02)
        assert sized.update() == expected


def test_machine_idle_reads_the_machines_counters():
    idle, total = machine_idle()
    assert 0 <= idle <= total


def test_a_busy_core_never_widens_the_gate():
    clock = Clock()
    sized = width(clock)
    for _ in range(10):
        sized.saw_queue()
        clock.spend(0.25, busy=0.95)
        assert sized.update() == 2


def test_a_fixed_width_stays_fixed():
    clock = Clock()
    sized = width(clock, base=3, ceiling=3)
    for _ in range(5):
        sized.saw_queue()
        clock.spend(0.25, busy=0.1)
        assert sized.update() == 3


def test_waiting_calls_keep_their_order_and_a_wider_gate_lets_them_in():
    clock = Clock()
    turns = Turns(width(clock, base=1, ceiling=4))
    order = []
    release = {n: asyncio.Event() for n in range(4)}

    async def talk(n):
        async with turns:
            order.append(n)
            await release[n].wait()

    async def scenario():
        tasks = [asyncio.create_task(talk(n)) for n in range(4)]
        await asyncio.sleep(0)
        assert order == [0] and turns.waiting == 3
        # Talks queued while the core idled for a period: the next turn given lets two more in.
        clock.spend(0.25, busy=0.1)
        release[0].set()
        await asyncio.sleep(0.01)
        assert order == [0, 1, 2] and turns.busy == 2
        for n in range(1, 4):
            release[n].set()
        await asyncio.gather(*tasks)
        assert order == [0, 1, 2, 3] and turns.busy == 0 and turns.waiting == 0

    asyncio.run(scenario())


def test_a_call_that_gives_up_never_loses_a_turn():
    clock = Clock()
    turns = Turns(width(clock, base=1, ceiling=1))
    release = asyncio.Event()

    async def holder():
        async with turns:
            await release.wait()

    async def waiter():
        async with turns:
            pass

    async def scenario():
        first = asyncio.create_task(holder())
        await asyncio.sleep(0)
        gone = asyncio.create_task(waiter())
        await asyncio.sleep(0)
        gone.cancel()  # a visitor who hung up while waiting
        await asyncio.sleep(0)
        granted_then_gone = asyncio.create_task(waiter())
        await asyncio.sleep(0)
        release.set()
        granted_then_gone.cancel()  # cancelled in the very step its turn is given
        await asyncio.gather(first, gone, granted_then_gone, return_exceptions=True)
        assert turns.busy == 0 and turns.waiting == 0
        await asyncio.wait_for(waiter(), 1)  # the gate still opens

    asyncio.run(scenario())


@pytest.mark.django_db(transaction=True)
def test_talks_waiting_on_the_database_run_more_at_once(demo_bot, settings, monkeypatch):
    """The real ASGI app, every statement of a talk delayed 5 ms (a distant database): talks sent together
    in bursts come to run more than the base width at once, and all answer."""
    from channels.testing import HttpCommunicator
    from django.db.backends.utils import CursorWrapper

    from config.asgi import application

    settings.CHAT_CONCURRENCY, settings.CHAT_CONCURRENCY_MAX = 1, 6
    most = {"at_once": 0}
    execute, enter = CursorWrapper.execute, Turns.__aenter__

    def slow_execute(self, sql, params=None):
        time.sleep(0.005)  # the round trip to a database on another host; the core idles meanwhile
        return execute(self, sql, params)

    async def counted_enter(self):
        held = await enter(self)
        most["at_once"] = max(most["at_once"], self.busy)
        return held

    monkeypatch.setattr(CursorWrapper, "execute", slow_execute)
    # The machine's cores idle meanwhile (a suite running beside this one may hold them: read separately).
    ticks = iter(range(0, 10**9, 100))
    monkeypatch.setattr("bots.servlet.turns.machine_idle", lambda: (next(ticks) * 0.9, next(ticks)))
    monkeypatch.setattr(Turns, "__aenter__", counted_enter)
    talk = f"/servlet/api/chat/talk/{demo_bot.uuid}"

    async def scenario():
        body = b"userInput=Quels+sont+vos+horaires&language=fr&space=Defaut"
        headers = [(b"content-type", b"application/x-www-form-urlencoded"), (b"host", b"127.0.0.1")]
        answers = []
        for _ in range(3):  # a few bursts: the width is measured over periods of 0.2 s
            talks = [HttpCommunicator(application, "POST", talk, body=body, headers=headers) for _ in range(12)]
            answers += await asyncio.gather(*(t.get_response(timeout=120) for t in talks))
        return answers

    answers = asyncio.run(scenario())
    assert [a["status"] for a in answers] == [200] * 36
    assert most["at_once"] > 1
