"""The websockets: the chatbox's (frames in, answers and live-chat pushes out) and the operators'
console's (actions in, the console's news out). Both only parse and deliver; the work is done by
the same services as the REST calls. Their channel layer is best effort (layer_loop): without Redis
they are served on, without live pushes; without the database they say so at once (unavailable)."""

import asyncio
import json
import logging

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from bots.servlet.errors import ServletError
from bots.status import services
from dialogs.clock import epoch_ms
from dialogs.contexts import parse_context_id

from . import console, frames, supervisors, unavailable, visitors
from .delivery import account_group, dialog_group, frame_text, operator_group
from .layer_loop import BestEffortLayer
from .polling import missed_events

log = logging.getLogger(__name__)
SUBPROTOCOL = "svcchat"


class ChatboxConsumer(BestEffortLayer, AsyncWebsocketConsumer):
    """The chatbox's socket (/servlet//chatWs, /servlet/chatWs, /chatWs). Once a frame names its dialog,
    the socket joins the dialog's group, where live chat pushes operator messages and notifications.
    After a channel-layer outage it is sent the events it missed (stored, as the REST poll reads them)."""

    group = None
    dialog_uuid = None
    # The time of the last event this socket has (or of following its dialog): what it missed is after.
    seen_ms = 0
    # Live chat holds the followed dialog: the socket says its visitor is there (visitors.py) while open.
    live = False
    presence = None

    async def connect(self):
        # servlet-api.md names the svcchat subprotocol; the chatbox offers none, so both are accepted.
        offered = self.scope.get("subprotocols") or []
        await self.accept(SUBPROTOCOL if SUBPROTOCOL in offered else None)
        self.serve_pushes()

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None:
            await self.error("Frames are JSON text; a binary frame is not read.")
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
        if unavailable.database_down():
            await self.unavailable(frame)
            return
        started = epoch_ms()
        try:
            handle = unavailable.check(frames.handle)
            outcome = await database_sync_to_async(handle)(frame, "websocket", self.client_address(), self.server_url())
        except ServletError as error:
            await self.error(error.message)
            return
        except unavailable.DatabaseUnavailable:
            await self.unavailable(frame)
            return
        except Exception:  # the socket stays open: one bad frame must not cut the visitor off
            log.exception("A chatbox frame failed")
            await self.error("The server failed to handle this frame; the failure is logged.")
            return
        followed = False
        if outcome.context_id:
            followed = await self.follow(outcome.context_id, since=started)
            if outcome.live is not None:
                self.set_live(outcome.live)
        for text in outcome.frames:
            await self.send(text_data=text)
        if followed and self.live:
            # Pushed while this frame was handled, before the socket was in its dialog's group (a
            # visitor queued again as their socket came back): sent now, once.
            await self.layer_back()

    def server_url(self) -> str:
        """This server's address as the chatbox reached it (wss → https), for links in answers."""
        headers = dict(self.scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if not host:
            return ""
        return ("https" if self.scope.get("scheme") == "wss" else "http") + "://" + host

    def set_live(self, live: bool):
        self.live = live
        if live and self.dialog_uuid is not None and (self.presence is None or self.presence.done()):
            self.presence = asyncio.ensure_future(self.keep_present())

    async def keep_present(self):
        """While the socket is open in live chat, its visitor is there: at most a write every few seconds."""
        while self.live and self.dialog_uuid is not None:
            if visitors.due(self.dialog_uuid) and not unavailable.database_down():
                try:
                    self.live = await database_sync_to_async(visitors.seen)(self.dialog_uuid)
                except Exception as error:  # presence goes on: the next beat tries again
                    if services.is_database_failure(error):
                        await unavailable.seen_async(error)
                    else:
                        log.warning("A chatbox socket's presence failed: %s", error)
            await asyncio.sleep(visitors.SOCKET_BEAT_SECONDS)

    def client_address(self) -> str:
        """The peer the server saw (uvicorn takes it from X-Forwarded-For only from FORWARDED_ALLOW_IPS)."""
        client = self.scope.get("client") or ()
        return str(client[0]) if client else ""

    async def follow(self, context_id: str, since: int) -> bool:
        """Join the dialog's group (True if it is another dialog); what was stored after `since` is news."""
        parsed = parse_context_id(context_id)
        if parsed is None:
            return False
        group = dialog_group(parsed)
        if group == self.group:
            return False
        if self.group:
            await self.leave(self.group)
        self.group, self.dialog_uuid, self.seen_ms = group, parsed, since
        self.live = False  # another dialog: its frames say whether it is in live chat
        await self.join(group)
        return True

    async def disconnect(self, code):
        self.live = False
        if self.presence is not None:
            self.presence.cancel()
        if self.group:
            await self.leave(self.group)

    async def livechat_push(self, event):
        at = event.get("at", 0)
        if at and at <= self.seen_ms:
            return  # sent already, with what this socket missed during an outage
        self.seen_ms = max(self.seen_ms, at)
        self.set_live(True)  # only dialogs in live chat get pushes
        await self.send(text_data=event["text"])

    async def layer_back(self):
        if self.dialog_uuid is None:
            return
        try:
            missed = await database_sync_to_async(unavailable.check(missed_events))(self.dialog_uuid, self.seen_ms)
        except unavailable.DatabaseUnavailable:
            return  # the visitor's history (or the poll) has them
        for event in missed:
            self.seen_ms = max(self.seen_ms, event.at_ms)
            await self.send(text_data=frame_text(event.frame_type, event.values))

    async def error(self, message: str):
        await self.send(text_data=frame_text("notification", {"code": "ERRInvalidRequest", "error": message}))

    async def unavailable(self, frame: dict):
        await self.send(text_data=frame_text("notification", unavailable.chatbox_values(frame)))


class OperatorConsumer(BestEffortLayer, AsyncWebsocketConsumer):
    """The operators' console (/servlet/operator/ws): the logged-in back-office user's session. JSON
    actions in ({"action": …, "ref": …}); the console's news out ({"type": …}). While the channel layer
    is down the console stays open and is told ({"type": "degraded"}): it acts as usual but hears of
    nothing new; when the layer answers again it gets {"type": "restored"} and its whole state."""

    operator_id = None
    heartbeat = None
    watching = False  # in the account's watch group (a supervisor's console)

    async def connect(self):
        user = self.scope.get("user")
        try:
            self.operator = await database_sync_to_async(unavailable.check(console.connect))(user)
        except ServletError as error:
            await self.accept()
            await self.send_json({"type": "error", "code": error.code, "error": error.message})
            await self.close(code=4403)
            return
        except unavailable.DatabaseUnavailable:
            await self.accept()
            await self.send_json(unavailable.console_error())
            await self.close(code=unavailable.TRY_AGAIN_LATER)
            return
        self.operator_id = self.operator.pk
        await self.accept()
        joined = await self.join(operator_group(self.operator_id))
        joined = await self.join(account_group(self.operator.account_id)) and joined
        joined = await self.follow_supervision() and joined
        await self.send_json(await database_sync_to_async(console.state)(self.operator))
        if not joined:
            await self._tell_lost()
        self.serve_pushes()
        self.heartbeat = asyncio.ensure_future(self.beat())

    async def beat(self):
        """Keep the operator's presence fresh while this console is open."""
        interval = max(1.0, settings.LIVECHAT_OPERATOR_GRACE_SECONDS / 3)
        while True:
            await asyncio.sleep(interval)
            if unavailable.database_down():
                continue  # nothing to write to; the watch says when it is back
            try:
                await database_sync_to_async(console.heartbeat)(self.operator_id)
            except Exception as error:  # the beat goes on: a failure must not end the operator's presence
                if services.is_database_failure(error):
                    await unavailable.seen_async(error)
                else:
                    log.warning("An operator's console heartbeat failed: %s", error)

    async def disconnect(self, code):
        if self.heartbeat is not None:
            self.heartbeat.cancel()
        if self.operator_id is not None:
            await self.leave(operator_group(self.operator_id))
            await self.leave(account_group(self.operator.account_id))
            if self.watching:
                await self.leave(supervisors.watch_group(self.operator.account_id))

    async def follow_supervision(self) -> bool:
        """A supervisor's console reads along (the account's watch group) while the right lasts; False if
        the layer could not be told now."""
        may = await database_sync_to_async(supervisors.is_supervisor)(self.operator.user_id)
        group = supervisors.watch_group(self.operator.account_id)
        if may and not self.watching:
            self.watching = True
            return await self.join(group)
        if not may and self.watching:
            self.watching = False
            await self.leave(group)
        return True

    async def supervision_rights(self, event):
        """The operator's supervisor right was given or taken back: the console follows, and is drawn anew."""
        try:
            await self.follow_supervision()
            state = await database_sync_to_async(unavailable.check(console.state))(self.operator)
        except unavailable.DatabaseUnavailable:
            return  # the console's next state (a reconnection) has it
        await self.send_json(state)

    async def layer_lost(self):
        await self.send_json(
            {
                "type": "degraded",
                "error": "Live chat's channel layer (Redis) is unreachable: this console is not told of new "
                "messages or visitors until it answers again; actions still work.",
            }
        )

    async def layer_back(self):
        if self.operator_id is None:
            return
        await self.send_json({"type": "restored"})
        try:
            state = await database_sync_to_async(unavailable.check(console.state))(self.operator)
        except unavailable.DatabaseUnavailable:
            await self.send_json(unavailable.console_error())
            return
        await self.send_json(state)  # what it missed meanwhile

    async def receive(self, text_data=None, bytes_data=None):
        if self.operator_id is None:
            return
        ref = None
        try:
            if text_data is None:
                raise ValueError("a binary frame")
            action = json.loads(text_data)
            if not isinstance(action, dict):
                raise ValueError
            ref = action.get("ref")
            if unavailable.database_down():
                raise unavailable.DatabaseUnavailable
            reply = await database_sync_to_async(unavailable.check(console.act))(self.operator_id, action)
        except (ValueError, RecursionError):
            reply = {"type": "error", "code": "BAD_REQUEST", "error": "Actions are JSON objects in text frames."}
        except ServletError as error:
            reply = {"type": "error", "code": error.code, "error": error.message}
        except unavailable.DatabaseUnavailable:
            reply = unavailable.console_error()
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


class UnknownPathConsumer(BestEffortLayer, AsyncWebsocketConsumer):
    """Any other websocket path: the handshake is refused (HTTP 403), cleanly, without an error logged
    (it never reads the channel layer, so a Redis outage cannot fail it either)."""

    async def connect(self):
        await self.close()
