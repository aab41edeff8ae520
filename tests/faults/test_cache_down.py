"""Redis stops under load and comes back: a Redis of the test's own (never the machine's) is the
shared cache and the channel layer of a real server. While it is down, REST chat answers every talk,
password logins (the Authentication servlet and HTTP Basic) work and are still limited (the lockout
counts in the process meanwhile), knowledge-base exports work, live chat goes on over the chatbox's
REST calls (what the visitor writes is kept for the operator), and the server status names what is
down. When it is back, everything recovers by itself: the status is Ok again, and websockets work
again, the operator's console and the chatbox's, on their first try."""

import base64
import json
import shutil
import time
from contextlib import ExitStack

import pytest
from websockets.sync.client import connect

from bots.status.services import CACHE_DOWN
from tests.conftest import decode
from tests.faults.client import Crowd, Visitor, call, count_by_status
from tests.livechat.conftest import ADVISOR, common
from tests.livechat.test_processes import Console
from tests.servers import ADMIN_PASSWORD, BOT_UUID, Platform, PrivateRedis

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

PATIENCE_SECONDS = 60
OPERATOR, OPERATOR_PASSWORD = "lea", "lea-pass-2026-x"


def wait_for(get, accept, what: str):
    """get() again until accept(its result); the result (never a measure of speed)."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while True:
        found = get()
        if accept(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"still not {what} after {PATIENCE_SECONDS} s: {found}")
        time.sleep(0.1)


class LiveVisitor:
    """A chatbox in live chat over REST: it talks, and polls for what the operator sends."""

    def __init__(self, base: str):
        self.base = base
        self.context_id = ""
        self.last_poll = 0

    def talk(self, text: str):
        path = f"/servlet/api/chat/talk/{BOT_UUID}" + (f"/{self.context_id}" if self.context_id else "")
        mode = base64.b64encode(b"polling").decode()
        answer = call(self.base, "POST", path, {"userInput": text, "language": "fr", "space": "Defaut", "mode": mode})
        assert answer.status == 200, answer
        values = decode(answer.json()["values"])
        self.context_id = values["contextId"]
        return values

    def poll(self):
        fields = {"contextId": self.context_id, "lastPoll": str(self.last_poll)}
        answer = call(self.base, "POST", f"/servlet/api/chat/poll/last/{BOT_UUID}", fields)
        assert answer.status == 200, answer
        body = answer.json()
        if not body:
            return None
        values = decode(body["values"])
        self.last_poll = values["pollUpdatedInteractionDate"]
        return values

    def poll_until(self, text: str) -> dict:
        return wait_for(self.poll, lambda event: event is not None and event.get("text") == text, f"polled {text!r}")


def whoami(base: str, authorization: str):
    answer = call(base, "GET", "/servlet/api/whoami", headers={"Authorization": authorization})
    assert answer.status == 200, answer
    return answer.json()


def status(base: str, token: str | None = None) -> dict:
    headers = {"Authorization": token} if token else {}
    answer = call(base, "GET", "/servlet/api/serverstatus" + ("?details=true" if token else ""), headers=headers)
    assert answer.status == 200, answer
    return answer.json()


def stored_interactions(platform: Platform) -> tuple[set, int]:
    """(context id, user input) of every stored interaction and the dialogs without one, read by the
    platform's own manage.py (SQLite or PostgreSQL alike)."""
    script = (
        "import json; from dialogs.models import Dialog, Interaction;"
        "pairs = [[str(u), t] for u, t in Interaction.objects.values_list('dialog__uuid', 'user_input')];"
        "empty = Dialog.objects.filter(interactions__isnull=True).count();"
        "print(json.dumps({'pairs': pairs, 'empty': empty}))"
    )
    found = json.loads(platform.manage("shell", "-c", script).strip().splitlines()[-1])
    return {tuple(pair) for pair in found["pairs"]}, found["empty"]


def test_redis_stops_under_load_logins_chat_and_exports_go_on_and_everything_recovers(tmp_path):
    folder = tmp_path / "platform"
    folder.mkdir()
    redis = PrivateRedis(folder).start()
    with ExitStack() as stack:
        stack.callback(redis.stop)
        platform = stack.enter_context(Platform(folder, redis_url=redis.url))
        server = platform.servers[0]
        base = server.base
        token = platform.admin_token()
        basic = "Basic " + base64.b64encode(f"admin:{ADMIN_PASSWORD}".encode()).decode()
        platform.add_operator(OPERATOR, OPERATOR_PASSWORD, max_dialogs=2)
        console = Console(server, OPERATOR, OPERATOR_PASSWORD, stack)
        console.send(action="status", status="available")
        console.until("operator")

        # A visitor in live chat with the operator, over REST (the chatbox's polling mode).
        live = LiveVisitor(base)
        assert live.talk(ADVISOR)["typeResponse"] == "DMLiveChatConnectionSucceed"
        dialog = console.until("dialog")["dialog"]
        assert dialog["contextId"] == live.context_id
        console.send(action="send", dialog=dialog["id"], text="Bonjour, ici Léa.")
        live.poll_until("Bonjour, ici Léa.")

        visitors = [Visitor(base, f"visitor-{n}", pause=0.1) for n in range(3)]
        crowd = stack.enter_context(Crowd(visitors))
        wait_for(lambda: [len(v.turns) for v in visitors], lambda turns: min(turns) >= 2, "talking")

        redis.stop()
        stopped_at = time.monotonic()

        # Password logins work, and guessing is still limited (in this process meanwhile).
        answer = call(base, "POST", "/servlet/api/authentication", {"login": "admin", "password": ADMIN_PASSWORD})
        assert answer.status == 200, answer
        assert whoami(base, answer.json()["token"])["user"]["login"] == "admin"
        assert whoami(base, basic)["authentication"] == {"accepted": True, "method": "basic", "expiresAt": None}
        guesses = [
            call(base, "POST", "/servlet/api/authentication", {"login": "mallory", "password": f"guess-{n}"})
            for n in range(5)
        ]
        assert [guess.status for guess in guesses] == [401, 401, 401, 429, 429]
        assert guesses[3].json()["code"] == "LOGIN_SLOWED"
        assert int(guesses[3].headers["retry-after"]) >= 1

        # A knowledge-base export works.
        export = call(
            base, "GET", f"/servlet/api/bot/knowledgebase/export/{BOT_UUID}", headers={"Authorization": token}
        )
        assert export.status == 200, export
        assert b"<knowledge" in export.body.lower() or export.body.lstrip().startswith(b"<?xml"), export.body[:200]

        # Live chat over REST: the visitor's message is kept for the operator; the poll answers.
        live.talk("Ma carte ne marche plus")
        assert live.poll() is None

        # The status names what is down, to anyone.
        down = status(base)
        # Degraded, not down: everything is served, so no load balancer should take the servers out.
        assert down["status"] == "Warning", down
        reasons = {problem["application"]: problem["reason"] for problem in down["problems"]}
        assert reasons["servlet"] == CACHE_DOWN, down
        assert "channel layer (Redis) is unreachable" in reasons["livechat"], down
        livechat = next(problem for problem in down["problems"] if problem["application"] == "livechat")
        assert livechat["status"] == "Warning", down  # degraded: the bot and REST chat go on
        assert {"dialog", "slogger", "website"}.isdisjoint(reasons), down
        detailed = status(base, token)
        assert detailed["applications"]["servlet"]["customs"]["reason"] == CACHE_DOWN, detailed
        wait_for(lambda: [len(v.turns) for v in visitors], lambda turns: min(turns) >= 6, "talking without Redis")

        redis.start()
        started_at = time.monotonic()
        back = wait_for(lambda: status(base), lambda body: body["status"] == "Ok", "Ok again")
        status_ok_after = time.monotonic() - started_at
        assert "problems" not in back
        assert status(base, token)["status"] == "Ok"

        # Websockets work again, on their first try: the operator's console and the chatbox's.
        console = Console(server, OPERATOR, OPERATOR_PASSWORD, stack)
        console.send(action="open", dialog=dialog["id"])
        transcript = console.until("transcript")
        written = [message["user"] for message in transcript["messages"] if message["from"] == "visitor"]
        assert "Ma carte ne marche plus" in written, transcript
        chatbox = stack.enter_context(connect(server.ws_url("/servlet//chatWs"), open_timeout=10))
        chatbox.send(json.dumps({"type": "checkContextAvailability", "parameters": common(BOT_UUID, live.context_id)}))
        chatbox.recv(timeout=10)
        console.send(action="send", dialog=dialog["id"], text="Je regarde ça.")
        while True:
            frame = json.loads(chatbox.recv(timeout=10))
            if decode(frame["values"]).get("text") == "Je regarde ça.":
                break
        live.poll_until("Je regarde ça.")
        wait_for(
            lambda: [sum(t.answer.at > started_at for t in v.turns) for v in visitors],
            lambda turns: min(turns) >= 2,
            "talking after Redis is back",
        )
        crowd.__exit__(None, None, None)

        # REST chat never failed, and every talk answered is stored.
        turns = crowd.turns()
        seen = count_by_status(turns)
        assert seen == {200: len(turns)}, seen
        during = sum(1 for turn in turns if stopped_at < turn.answer.at < started_at)
        stored, empty = stored_interactions(platform)
        assert {(turn.answered_context, turn.text) for turn in turns} <= stored
        assert empty == 0
    print(
        f"\nRedis outage: REST talks {seen} ({during} while Redis was down); logins 200, guesses"
        f" {[guess.status for guess in guesses]}; export {export.status}; status while down {down};"
        f" status Ok {status_ok_after:.2f} s after Redis started"
    )


def test_while_redis_is_down_no_visitor_is_offered_an_operator_whose_console_cannot_hear_of_them(tmp_path):
    """The console stays open through the outage (and is told it is degraded) but cannot be pushed to:
    the bot's availability says nobody can be reached, so visitors are not sent to a console that would
    never show them; callbacks are still taken."""
    folder = tmp_path / "platform"
    folder.mkdir()
    redis = PrivateRedis(folder).start()
    with ExitStack() as stack:
        stack.callback(redis.stop)
        platform = stack.enter_context(Platform(folder, redis_url=redis.url, grace_seconds=3))
        server = platform.servers[0]
        platform.add_operator(OPERATOR, OPERATOR_PASSWORD, max_dialogs=2)
        console = Console(server, OPERATOR, OPERATOR_PASSWORD, stack)
        console.send(action="status", status="available")
        console.until("operator")

        def available():
            answer = call(server.base, "POST", f"/servlet/api/operators/available/{BOT_UUID}", {})
            assert answer.status == 200, answer
            return answer.json()["available"]

        wait_for(available, lambda value: value is True, "available with the console open")
        redis.stop()
        assert "Redis" in console.until("degraded", timeout=30)["error"]
        wait_for(available, lambda value: value is False, "unreachable while Redis is down")

        # With nobody online, a visitor asks to be called back: still taken, still limited per address
        # (the limit counts in this process while the shared cache is down).
        asked = [
            call(
                server.base, "POST", f"/servlet/api/callback/{BOT_UUID}", {"phone": "+33 1 23 45 67 89", "name": "Zoé"}
            )
            for _ in range(6)
        ]
        assert [answer.status for answer in asked] == [201] * 5 + [429], asked
