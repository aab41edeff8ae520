"""Live-chat fixtures: an operators' team in the demo bot's account, visitors that talk and poll as the
CV5 chatbox does, and websocket clients (the chatbox's socket and the operators' console) on the real
ASGI app."""

import base64
import json
from types import SimpleNamespace

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from accounts.models import Competency
from livechat import presence
from livechat.models import LivechatRequest, Operator
from tests.accounts.personas import make_persona
from tests.conftest import Chatbox, decode

POLLING = base64.b64encode(b"polling").decode()
ADVISOR = "Je veux parler à un conseiller"
# How long a test waits for an expected frame. Only a failure waits this long; CI's loaded machine once took
# over 5 s to deliver a pushed frame (the talk runs on a worker thread, the push after its commit).
FRAME_WAIT = 15


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def make_operator(account, login: str, name: str, *, status="available", max_dialogs=3, competencies=()):
    user, token = make_persona(account, "operator", login=login)
    user.first_name = name
    user.is_staff = True
    user.save(update_fields=["first_name", "is_staff"])
    operator = presence.operator_for(user)
    Operator.objects.filter(pk=operator.pk).update(status=status, max_dialogs=max_dialogs, last_seen_at=timezone.now())
    operator.refresh_from_db()
    operator.user = user
    operator.competencies.set(competencies)
    operator.token = token
    return operator


@pytest.fixture
def team(demo_bot):
    """Léa (competency Cartes) and Marc, both available with 3 slots; Sam is offline."""
    account = demo_bot.account
    cards = Competency.objects.create(account=account, name="Cartes")
    loans = Competency.objects.create(account=account, name="Crédits")
    return SimpleNamespace(
        account=account,
        cards=cards,
        loans=loans,
        lea=make_operator(account, "lea", "Léa", competencies=[cards]),
        marc=make_operator(account, "marc", "Marc"),
        sam=make_operator(account, "sam", "Sam", status="offline", competencies=[loans]),
    )


class Visitor(Chatbox):
    """A chatbox visitor over REST: talks, then in live chat writes with mode=polling and polls."""

    def __init__(self, client, bot_uuid):
        super().__init__(client, bot_uuid)
        self.last_poll = 0

    def ask_for_human(self, text: str = ADVISOR, **fields) -> dict:
        values = self.talk(text, **fields)
        self.last_poll = values["serverTime"]
        return values

    def write(self, text: str) -> dict:
        """A message while in live chat (CV5's polling transport: a normal talk with mode=polling)."""
        return self.talk(text, mode=POLLING)

    def poll(self, advance: bool = True) -> dict:
        response = self.post(
            f"chat/poll/last/{self.bot}",
            {
                "solutionUsed": "LIVECHAT",
                "format": "JSon",
                "space": self.space,
                "contextUuid": self.context_id,
                "language": self.language,
                "lastPoll": str(self.last_poll),
            },
        )
        assert response.status_code == 200, response.content
        body = response.json()
        if "values" not in body:
            return {}
        values = decode(body["values"])
        if advance:
            self.last_poll = values["pollUpdatedInteractionDate"]
        return values

    def poll_all(self) -> list[dict]:
        found = []
        while event := self.poll():
            found.append(event)
        return found

    def live_request(self) -> LivechatRequest:
        return LivechatRequest.objects.filter(dialog__uuid=self.context_id).order_by("-pk").first()


@pytest.fixture
def visitor(client, demo_bot):
    return Visitor(client, str(demo_bot.uuid))


@pytest.fixture
def new_visitor(demo_bot):
    """More visitors, each with their own client (browser)."""
    return lambda: Visitor(Client(), str(demo_bot.uuid))


# ------------------------------------------------------------------------------------------ websockets


def session_cookie(user) -> bytes:
    """The cookie of a logged-in back-office session of `user`."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


def common(bot_uuid: str, context_id: str = "") -> dict:
    return {
        "contextId": b64(context_id),
        "botId": b64(bot_uuid),
        "space": b64("Defaut"),
        "clientId": b64("a1b2c3d4e5f6a7b"),
        "language": b64("fr"),
        "solutionUsed": b64("ASSISTANT"),
        "userUrl": b64("http://shop.example/"),
        "browser": b64("Google Chrome or Chromium"),
        "os": b64("Linux"),
        "saml2_info": None,
    }


def talk_frame(bot_uuid: str, text: str, context_id: str = "") -> dict:
    parameters = common(bot_uuid, context_id) | {
        "userInput": b64(text),
        "alreadyCame": False,
        "contextType": b64("Web"),
        "qualificationMode": False,
        "doNotRegisterInteraction": False,
        "useServerCookieForContext": False,
        "disableLanguageDetection": True,
        "timestamp": 1790000000000,
        "extraParameters": {},
    }
    return {"type": "talk", "parameters": parameters}


class Socket:
    """A websocket client on the real ASGI app (config.asgi.application)."""

    def __init__(self, path: str):
        self.path = path
        self.communicator = None

    async def headers(self) -> list:
        return []

    async def open(self):
        from config.asgi import application

        self.communicator = WebsocketCommunicator(application, self.path, headers=await self.headers())
        connected, _ = await self.communicator.connect()
        assert connected
        return self

    async def send(self, frame):
        await self.communicator.send_to(text_data=frame if isinstance(frame, str) else json.dumps(frame))

    async def receive(self, timeout: float = FRAME_WAIT):
        text = await self.communicator.receive_from(timeout=timeout)
        return text if text == "pong" else json.loads(text)

    async def nothing(self, timeout: float = 0.3) -> bool:
        return await self.communicator.receive_nothing(timeout=timeout)

    async def close(self):
        await self.communicator.disconnect()


class ChatboxSocket(Socket):
    def __init__(self, bot_uuid: str, path: str = "/servlet//chatWs"):
        super().__init__(path)
        self.bot = bot_uuid
        self.context_id = ""

    async def talk(self, text: str) -> dict | None:
        await self.send(talk_frame(self.bot, text, self.context_id))

    async def follow(self, context_id: str):
        """What CV5 sends when its socket opens: the context check, which makes the socket follow the dialog."""
        self.context_id = context_id
        await self.send({"type": "checkContextAvailability", "parameters": common(self.bot, context_id)})
        return await self.receive()

    async def frame(self, timeout: float = FRAME_WAIT) -> dict:
        """The next frame, its values decoded as the chatbox decodes them."""
        frame = await self.receive(timeout)
        return {"type": frame["type"], **decode(frame["values"])}


class ConsoleSocket(Socket):
    """The operators' console, authenticated by the operator's back-office session."""

    def __init__(self, operator):
        super().__init__("/servlet/operator/ws")
        self.user = operator.user

    async def headers(self) -> list:
        cookie = await database_sync_to_async(session_cookie)(self.user)
        return [(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)]

    async def act(self, **action) -> dict:
        await self.send(action)
        return await self.receive()

    async def until(self, kind: str, timeout: float = FRAME_WAIT) -> dict:
        """The next message of that type (others, such as queue updates, are skipped)."""
        while True:
            message = await self.receive(timeout)
            if message.get("type") == kind:
                return message
