"""The live-chat benchmark's baseline: a bare Channels consumer served by daphne on the same Redis
channel layer as the platform (bench/livechat.py starts it as `daphne bench.echo_asgi:application`).

It does only what the platform's chatbox socket must do at the least: accept, join a group named by
the first message, answer it, and relay what its group receives. No database, no middleware.

Messages (JSON text):
    {"join": GROUP, "text": T}   joins GROUP (leaving any previous group) and answers {"echo": T}
    {"to": GROUP, "text": T}     group_sends T to GROUP and answers {"sent": T}
    anything else                is echoed back as it came
A message group_sent to the socket's group ({"type": "bench.push", "text": T}) is sent as T.

Environment: as the platform's (REDIS_URL; DATA_DIR, where config/settings.py keeps its secret key).
The layer's settings are the platform's own CHANNEL_LAYERS, read from config/settings.py.
"""

import importlib.util
import json
from pathlib import Path

import django
from django.conf import settings


def platform_layers() -> dict:
    """The platform's own channel-layer settings (config/settings.py reads REDIS_URL), so that the
    baseline rides exactly the same layer (backend, Redis options, capacity) as the platform."""
    path = Path(__file__).resolve().parent.parent / "config" / "settings.py"
    spec = importlib.util.spec_from_file_location("_platform_settings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CHANNEL_LAYERS


if not settings.configured:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="bench-echo-not-secret",
        INSTALLED_APPS=["channels"],
        CHANNEL_LAYERS=platform_layers(),
        ALLOWED_HOSTS=["*"],
        USE_TZ=True,
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402  (needs settings first)
from channels.routing import ProtocolTypeRouter  # noqa: E402


class EchoConsumer(AsyncWebsocketConsumer):
    group = None

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None:
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            await self.send(text_data=text_data)
            return
        if "join" in message:
            group = str(message["join"])
            if group != self.group:
                if self.group:
                    await self.channel_layer.group_discard(self.group, self.channel_name)
                await self.channel_layer.group_add(group, self.channel_name)
                self.group = group
            await self.send(text_data=json.dumps({"echo": message.get("text", "")}))
        elif "to" in message:
            text = str(message.get("text", ""))
            await self.channel_layer.group_send(str(message["to"]), {"type": "bench.push", "text": text})
            await self.send(text_data=json.dumps({"sent": text}))
        else:
            await self.send(text_data=text_data)

    async def bench_push(self, event):
        await self.send(text_data=event["text"])

    async def disconnect(self, code):
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)


application = ProtocolTypeRouter({"websocket": EchoConsumer.as_asgi()})
