"""The queue under a rush across two real server processes (issue 23 item 5), on the database of the run
(a SQLite file, or a scratch database on DATABASE_URL's PostgreSQL) and a Redis channel layer: Léa's
console on one process, Marc's on the other, 3 slots each and 3 queue places per operator; 20 visitors,
half on each process, ask for a human at the same instant over the REST chat talk, three rounds in a
row. Each round 6 are connected, 6 wait at places 1 to 6 and 8 hear that nobody is available; the
operators' counters, the queue status call, the consoles' queue and the places pushed to the waiting
visitors agree with the answers. Everything is read through the platform's own calls."""

import os
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest

from tests.conftest import decode
from tests.livechat.conftest import ADVISOR
from tests.livechat.test_processes import Console
from tests.servers import BOT_UUID, Browser, Platform

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL") and shutil.which("redis-server") is None,
    reason="needs REDIS_URL, or redis-server to start a Redis of its own",
)

VISITORS = 20
SLOTS = 3  # an operator's max_dialogs by default
PLACES = 3 * 2  # queue_per_operator's default, for two operators
ROUNDS = 3
PASSWORD = "queue-pass-2026-x"
# How long a thread waits for the others at the barrier before the test gives up (never a measure of speed).
PATIENCE_SECONDS = 120


class Visitor:
    """A chatbox over REST on one server process."""

    def __init__(self, server):
        self.browser = Browser(server)
        self.context_id = ""
        self.last_poll = 0

    def talk(self, text: str) -> dict:
        path = f"/servlet/api/chat/talk/{BOT_UUID}" + (f"/{self.context_id}" if self.context_id else "")
        values = decode(self.browser.post_form(path, {"userInput": text, "language": "fr"})["values"])
        self.context_id = values["contextId"]
        self.last_poll = values["serverTime"]
        return values

    def place_told(self, answer: dict) -> int:
        """The place the chatbox shows now: the latest queue notice it polled, else the talk's answer."""
        place = answer["queuePosition"]
        while True:
            fields = {
                "solutionUsed": "LIVECHAT",
                "format": "JSon",
                "space": "Defaut",
                "contextUuid": self.context_id,
                "language": "fr",
                "lastPoll": str(self.last_poll),
            }
            body = self.browser.post_form(f"/servlet/api/chat/poll/last/{BOT_UUID}", fields)
            if "values" not in body:
                return place
            event = decode(body["values"])
            self.last_poll = event["pollUpdatedInteractionDate"]
            if event.get("code") == "NAWaitingForOperator":
                place = event["queuePosition"]

    def status_place(self) -> int | None:
        body = self.browser.post_form(f"/servlet/api/chat/status/{BOT_UUID}/{self.context_id}", {})
        return decode(body["values"]).get("queuePosition")


def together(calls) -> list:
    start = threading.Barrier(len(calls))

    def run(call):
        start.wait(timeout=PATIENCE_SECONDS)
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def team(platform, token) -> dict:
    cards = Browser(platform.servers[0]).get_json("/servlet/api/operators/availability", token=token)["operators"]
    return {card["login"]: card for card in cards}


def test_twenty_visitors_on_two_processes_get_places_one_to_n_round_after_round(tmp_path):
    with Platform(tmp_path / "platform", processes=2, redis=True) as platform, ExitStack() as sockets:
        a, b = platform.servers
        homes = {"lea": a, "marc": b}
        for login, server in homes.items():
            platform.add_operator(login, PASSWORD)
            console = Console(server, login, PASSWORD, sockets)
            console.send(action="status", status="available")
            console.until("operator")
        token = platform.admin_token()

        for _ in range(ROUNDS):
            visitors = [Visitor((a, b)[index % 2]) for index in range(VISITORS)]
            for visitor in visitors:
                visitor.talk("Bonjour")  # the dialogs are open: the rush is the handover only

            answers = together([lambda v=v: v.talk(ADVISOR) for v in visitors])

            pairs = list(zip(visitors, answers, strict=True))
            connected = [v for v, a in pairs if a["typeResponse"] == "DMLiveChatConnectionSucceed"]
            waiting = [(v, a) for v, a in pairs if a.get("specialAction") == "StartWaitingQueue"]
            refused = [v for v, a in pairs if "Aucun conseiller n'est disponible" in a["text"]]
            places = sorted(answer["queuePosition"] for _, answer in waiting)
            assert places == list(range(1, PLACES + 1)), places
            assert (len(connected), len(refused)) == (SLOTS * 2, VISITORS - SLOTS * 2 - PLACES)
            cards = team(platform, token)
            assert [(cards[login]["activeDialogs"], cards[login]["maxDialogs"]) for login in homes] == [
                (SLOTS, SLOTS)
            ] * 2
            # The queue as the chatbox's status call, a console that opens and the pushes see it.
            for visitor, answer in waiting:
                assert visitor.status_place() == answer["queuePosition"]
                assert visitor.place_told(answer) == answer["queuePosition"]
            opened = Console(a, "lea", PASSWORD, sockets).state
            told = {visitor.context_id: answer["queuePosition"] for visitor, answer in waiting}
            assert {card["contextId"]: card["place"] for card in opened["queue"]} == told
            assert [card["place"] for card in opened["queue"]] == list(range(1, PLACES + 1))

            # The round ends: the waiting visitors leave, the operators end their dialogs.
            for visitor, _ in waiting:
                assert visitor.talk("#livechatleavequeue#")["typeResponse"] == "DMLiveChatLeaveQueue"
            for login, server in homes.items():
                console = Console(server, login, PASSWORD, sockets)
                for card in console.state["dialogs"]:
                    console.send(action="end", dialog=card["id"])
                    console.until("ok", where=lambda message, pk=card["id"]: message["dialog"] == pk)
            assert [team(platform, token)[login]["activeDialogs"] for login in homes] == [0, 0]

        logs = a.output() + b.output()
        assert "Traceback" not in logs, logs[-3000:]
