"""A websocket consumer whose channel layer is best effort: the socket is served (frames in, answers out)
whether the layer (Redis) answers or not; live pushes arrive while it does.

channels' AsyncConsumer reads the client and the layer in one loop (utils.await_many_dispatch) and dies
when the layer's receive raises: when Redis stopped, every socket of the process was dropped without a
close frame, and each new one was accepted then dropped at once, with a traceback each time. Here the
layer is read by a task of its own. A failure goes to layer_health (one WARNING per outage and process)
and the task waits there, without polling, until the layer answers; the socket then joins its groups
again (a restarted Redis has forgotten them) and goes on reading. Joining and leaving a group are best
effort too, with a short timeout.
"""

import asyncio
import contextlib

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.layers import get_channel_layer

from .layer import is_unreachable, record_layer_failure
from .layer_health import health, retry_delay

# A group_add or group_discard that takes longer is given up (the layer is then taken as down).
LAYER_CALL_SECONDS = 2.0


class BestEffortLayer:
    """Put before AsyncWebsocketConsumer. A subclass calls `serve_pushes()` once its socket is accepted,
    joins and leaves groups with `join()` / `leave()`, and may override `layer_lost()` (once per outage)
    and `layer_back()` to tell its client."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.wanted: set[str] = set()  # the groups this socket belongs in
        self.joined: set[str] = set()  # those the layer has confirmed since it last failed
        self.pushes_wanted = False
        self.lost = False

    async def __call__(self, scope, receive, send):
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()  # a local name: no I/O
        self.base_send = send
        with contextlib.suppress(StopConsumer):
            await self._serve(receive)

    async def _serve(self, receive):
        client = asyncio.ensure_future(receive())
        pushes = None
        try:
            while True:
                waiting = {client} if pushes is None else {client, pushes}
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                # Looked at again after each dispatch, as channels does: a push that arrived while a
                # frame was handled goes out right after its answer, before the client's next frame.
                if client.done():
                    await self.dispatch(client.result())
                    client = asyncio.ensure_future(receive())
                if pushes is not None and pushes.done():
                    await self.dispatch(pushes.result())
                    pushes = None
                if pushes is None and self.pushes_wanted and self.channel_layer is not None:
                    pushes = asyncio.ensure_future(self._next_push())
        finally:
            for task in (client, pushes):
                if task is not None and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task

    async def dispatch(self, message):
        # channels' dispatch first closes stale database connections on the process's one sync thread:
        # a ping or a push then waited behind whatever that thread was doing (a frame waiting on a
        # database that went down). Every database call here goes through database_sync_to_async,
        # which closes them itself.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    def serve_pushes(self):
        """The socket is accepted: read what the layer pushes to it from now on."""
        self.pushes_wanted = True

    async def _next_push(self) -> dict:
        failures = 0
        while True:
            if health.is_down():
                await self._tell_lost()
                await health.wait_until_back()
            if self.wanted - self.joined and not await self._join_again():
                failures += 1
                await asyncio.sleep(retry_delay(failures))
                continue
            if self.lost:
                self.lost = False
                await self.layer_back()
            try:
                message = await self.channel_layer.receive(self.channel_name)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the layer failed: the socket is served on, without pushes
                await self._failed(error)
                self.joined.clear()  # Redis may come back empty
                failures += 1
                # Never a busy loop, even if another call clears the flag at once.
                await asyncio.sleep(retry_delay(failures))
                continue
            health.succeeded()
            return message

    async def _join_again(self) -> bool:
        for group in sorted(self.wanted - self.joined):
            if not await self._layer_call(self.channel_layer.group_add, group):
                return False
            self.joined.add(group)
        return True

    async def _tell_lost(self):
        if not self.lost:
            self.lost = True
            await self.layer_lost()

    async def join(self, group: str) -> bool:
        """Belong to `group`; False if the layer could not be told now (it is told when it answers)."""
        self.wanted.add(group)
        if self.channel_layer is None or health.is_down():
            return False
        if await self._layer_call(self.channel_layer.group_add, group):
            self.joined.add(group)
            return True
        return False

    async def leave(self, group: str) -> None:
        # While the layer is down the membership is left to expire: Redis drops a group's members after
        # channels_redis's group_expiry, and a push to a closed socket's channel expires unread.
        self.wanted.discard(group)
        was_joined = group in self.joined
        self.joined.discard(group)
        if self.channel_layer is not None and was_joined and not health.is_down():
            await self._layer_call(self.channel_layer.group_discard, group)

    async def _layer_call(self, method, group: str) -> bool:
        try:
            await asyncio.wait_for(method(group, self.channel_name), LAYER_CALL_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            await self._failed(error)
            return False
        health.succeeded()
        return True

    async def _failed(self, error: Exception):
        if health.failed(error) and not is_unreachable(error):
            # Not a Redis that is simply down (a read that timed out, say): the status remembers it.
            await sync_to_async(record_layer_failure, thread_sensitive=False)(error)

    async def layer_lost(self):
        """The layer failed under this socket (once per outage)."""

    async def layer_back(self):
        """The layer answers again and the socket is back in its groups."""
