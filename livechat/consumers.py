"""The websockets: the chatbox's (frames in, answers and live-chat pushes out) and the operators'
console's (actions in, the console's news out). Both only parse and deliver; the work is done by
the same services as the REST calls."""

import asyncio
import json
import logging

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from bots.servlet.errors import ServletError
from dialogs.contexts import parse_context_id

from . import console, frames
from .delivery import account_group, dialog_group, frame_text, operator_group
from .layer import record_layer_failure

log = logging.getLogger(__name__)
SUBPROTOCOL = "svcchat"


class LayerWatch:
    """A channel layer that fails under a consumer (Redis gone, a read timeout) closes its socket with
    1011; the failure is recorded so the server status reports live chat as Ko."""

    async def __call__(self, scope, receive, send):
        try:
            return await super().__call__(scope, receive, send)
        except Exception as error:
            # The consumer dies without its disconnect(): an operator's heartbeat would keep a dead
            # console "available" forever, so its visitors would never be moved.
            heartbeat = getattr(self, "heartbeat", None)
            if heartbeat is not None:
                heartbeat.cancel()
            await database_sync_to_async(record_layer_failure)(error)
            raise


class ChatboxConsumer(LayerWatch, AsyncWebsocketConsumer):
    """The chatbox's socket (/servlet//chatWs, /servlet/chatWs, /chatWs). Once a frame names its dialog,
    the socket joins the dialog's group, where live chat pushes operator messages and notifications."""

    group = None

    async def connect(self):
        # servlet-api.md names the svcchat subprotocol; the chatbox offers none, so both are accepted.
        offered = self.scope.get("subprotocols") or []
        await self.accept(SUBPROTOCOL if SUBPROTOCOL in offered else None)

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None:
            return
        if text_data.strip() == "ping":
            await self.send(text_data="pong")
            return
        try:
            frame = json.loads(text_data)
            if not isinstance(frame, dict):
                raise ValueError("a frame is a JSON object")
        except (ValueError, RecursionError):
            await self.error("Frames are JSON objects.")
            return
        try:
            outcome = await database_sync_to_async(frames.handle)(frame, "websocket", self.client_address())
        except ServletError as error:
            await self.error(error.message)
            return
        except Exception:  # the socket stays open: one bad frame must not cut the visitor off
            log.exception("A chatbox frame failed")
            await self.error("The server failed to handle this frame; the failure is logged.")
            return
        if outcome.context_id:
            await self.follow(outcome.context_id)
        for text in outcome.frames:
            await self.send(text_data=text)

    def client_address(self) -> str:
        """The peer the server saw (uvicorn takes it from X-Forwarded-For only from FORWARDED_ALLOW_IPS)."""
        client = self.scope.get("client") or ()
        return str(client[0]) if client else ""

    async def follow(self, context_id: str):
        parsed = parse_context_id(context_id)
        if parsed is None or self.channel_layer is None:
            return
        group = dialog_group(parsed)
        if group == self.group:
            return
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.channel_layer.group_add(group, self.channel_name)
        self.group = group

    async def disconnect(self, code):
        if self.group and self.channel_layer is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def livechat_push(self, event):
        await self.send(text_data=event["text"])

    async def error(self, message: str):
        await self.send(text_data=frame_text("notification", {"code": "ERRInvalidRequest", "error": message}))


class OperatorConsumer(LayerWatch, AsyncWebsocketConsumer):
    """The operators' console (/servlet/operator/ws): the logged-in back-office user's session. JSON
    actions in ({"action": …, "ref": …}); the console's news out ({"type": …})."""

    operator_id = None
    heartbeat = None

    async def connect(self):
        user = self.scope.get("user")
        try:
            self.operator = await database_sync_to_async(console.connect)(user)
        except ServletError as error:
            await self.accept()
            await self.send_json({"type": "error", "code": error.code, "error": error.message})
            await self.close(code=4403)
            return
        self.operator_id = self.operator.pk
        await self.accept()
        await self.channel_layer.group_add(operator_group(self.operator_id), self.channel_name)
        await self.channel_layer.group_add(account_group(self.operator.account_id), self.channel_name)
        await self.send_json(await database_sync_to_async(console.state)(self.operator))
        self.heartbeat = asyncio.ensure_future(self.beat())

    async def beat(self):
        """Keep the operator's presence fresh while this console is open."""
        interval = max(1.0, settings.LIVECHAT_OPERATOR_GRACE_SECONDS / 3)
        while True:
            await asyncio.sleep(interval)
            await database_sync_to_async(console.heartbeat)(self.operator_id)

    async def disconnect(self, code):
        if self.heartbeat is not None:
            self.heartbeat.cancel()
        if self.operator_id is not None:
            await self.channel_layer.group_discard(operator_group(self.operator_id), self.channel_name)
            await self.channel_layer.group_discard(account_group(self.operator.account_id), self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if self.operator_id is None or text_data is None:
            return
        ref = None
        try:
            action = json.loads(text_data)
            if not isinstance(action, dict):
                raise ValueError
            ref = action.get("ref")
            reply = await database_sync_to_async(console.act)(self.operator_id, action)
        except (ValueError, RecursionError):
            reply = {"type": "error", "code": "BAD_REQUEST", "error": "Actions are JSON objects."}
        except ServletError as error:
            reply = {"type": "error", "code": error.code, "error": error.message}
        except Exception:  # the console stays connected: the operator sees the failure and may retry
            log.exception("An operator's console action failed")
            reply = {"type": "error", "code": "INTERNAL_ERROR", "error": "The server failed; the failure is logged."}
        if reply is not None:
            if ref is not None:
                reply["ref"] = ref
            await self.send_json(reply)

    async def console_push(self, event):
        await self.send_json(event["message"])

    async def send_json(self, content):
        await self.send(text_data=json.dumps(content, ensure_ascii=False))


class UnknownPathConsumer(AsyncWebsocketConsumer):
    """Any other websocket path: the handshake is refused (HTTP 403), cleanly, without an error logged."""

    async def connect(self):
        await self.close()
