"""What the fault tests' clients do over real HTTP: one call, answered or not (a refused or timed-out
connection is an outcome too, never an exception), and visitors talking in threads that log every
answer they got, so that a test can say what clients saw during an outage and check that every talk
answered 200 was stored."""

import base64
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from tests.servers import BOT_UUID

# A request still unanswered after this long counts as hung (a request waiting on the database's pool
# would wait 10 s); above 5 s for a loaded CI machine.
HUNG_SECONDS = 8
# Questions the demo bot knows, and one it does not.
QUESTIONS = ("J'ai perdu ma carte bancaire", "Quels sont vos horaires ?", "Combien coûte le compte ?", "xyzzy plugh")


@dataclass
class Answer:
    status: int  # 0: no HTTP answer (connection refused or reset, or hung past HUNG_SECONDS)
    headers: dict  # names in lower case
    body: bytes
    seconds: float
    at: float  # time.monotonic() when the answer came

    def json(self):
        return json.loads(self.body)


def call(base: str, method: str, path: str, fields: dict | None = None, headers: dict | None = None) -> Answer:
    data = urllib.parse.urlencode(fields).encode() if fields is not None else None
    sent = {"Content-Type": "application/x-www-form-urlencoded"} if data is not None else {}
    sent.update(headers or {})
    request = urllib.request.Request(base + path, data=data, method=method, headers=sent)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=HUNG_SECONDS) as response:
            status, answered, body = response.status, names_lowered(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, answered, body = error.code, names_lowered(error.headers), error.read()
    except OSError as error:  # refused, reset, or no answer in time
        status, answered, body = 0, {}, repr(error).encode()
    now = time.monotonic()
    return Answer(status, answered, body, now - started, now)


def names_lowered(headers) -> dict:
    # Header names are case-insensitive: uvicorn's C parser (httptools) sends Django's "Content-Type" as
    # "content-type", h11 kept the case.
    return {name.lower(): value for name, value in headers.items()}


def decoded(value: str) -> str:
    return base64.b64decode(value).decode("utf-8")


@dataclass
class Turn:
    context_id: str  # the context the talk was sent in ("" for a new dialog)
    text: str
    answer: Answer
    answered_context: str = ""  # the context id of a 200


@dataclass
class Visitor:
    """A chatbox talking over REST to one server: its own dialog, a new turn every `pause` seconds,
    the same context again after a refusal (as the chatbox does)."""

    base: str
    name: str
    pause: float = 0.05
    turns: list[Turn] = field(default_factory=list)
    context_id: str = ""

    def talk(self) -> Turn:
        text = f"{QUESTIONS[len(self.turns) % len(QUESTIONS)]} ({self.name} #{len(self.turns)})"
        path = f"/servlet/api/chat/talk/{BOT_UUID}" + (f"/{self.context_id}" if self.context_id else "")
        fields = {"userInput": text, "language": "fr", "space": "Defaut", "clientId": self.name}
        turn = Turn(self.context_id, text, call(self.base, "POST", path, fields))
        if turn.answer.status == 200:
            turn.answered_context = decoded(turn.answer.json()["values"]["contextId"])
            self.context_id = turn.answered_context
        self.turns.append(turn)
        return turn


class Crowd:
    """Visitors talking in threads until stopped."""

    def __init__(self, visitors: list[Visitor]):
        self.visitors = visitors
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(visitor,), daemon=True) for visitor in visitors]

    def _run(self, visitor: Visitor):
        while not self._stop.is_set():
            visitor.talk()
            self._stop.wait(visitor.pause)

    def __enter__(self):
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=HUNG_SECONDS + 5)

    def turns(self) -> list[Turn]:
        return [turn for visitor in self.visitors for turn in visitor.turns]


def count_by_status(turns) -> dict[int, int]:
    counts: dict[int, int] = {}
    for turn in turns:
        counts[turn.answer.status] = counts.get(turn.answer.status, 0) + 1
    return dict(sorted(counts.items()))
