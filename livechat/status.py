"""Live chat in the server status: its transport (the channel layer: a message sent must come back,
and nothing must be wrong with the layer), the waiting queue, connected operators and live dialogs.
Registered by LivechatConfig.ready under the `livechat` application and as volumes.

A channel layer that cannot be reached is a Warning naming Redis, not Ko: websockets stay open and bot
conversations go on over them, REST chat and the poll work, and only live pushes and handovers wait
(livechat/layer_loop.py, layer_health.py). A layer that answers but loses messages, or is set up to drop
idle sockets, is Ko."""

import asyncio

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from bots.status.checks import KO, OK, WARNING, Result

from .layer import recent_failure, socket_timeout_problem
from .layer_health import health
from .models import LivechatRequest, Operator
from .queue import alive_since

LAYER_DOWN = (
    "the channel layer ({name}) is unreachable: websockets stay open and the bot answers over them, but live chat's "
    "pushes wait and no visitor is handed to an operator (the REST poll still works)"
)
# A Redis that does not answer must not hold the status for its connect timeout (5 s).
SEND_SECONDS = 2
RECEIVE_SECONDS = 2


def connected_operators() -> int:
    """Operators with an open console who are not offline."""
    return Operator.objects.exclude(status=Operator.Status.OFFLINE).filter(last_seen_at__gte=alive_since()).count()


def current_livechat_dialogs() -> int:
    """Dialogs an operator holds now."""
    return LivechatRequest.objects.filter(status=LivechatRequest.Status.ASSIGNED).count()


def queue_report(now=None) -> dict:
    now = now or timezone.now()
    waiting = LivechatRequest.objects.filter(status=LivechatRequest.Status.QUEUED)
    oldest = waiting.order_by("queued_at").values_list("queued_at", flat=True).first()
    return {"waiting": waiting.count(), "longestWaitSeconds": int((now - oldest).total_seconds()) if oldest else 0}


def layer_problem(layer) -> str | None:
    """Why live chat's websockets would not hold on this layer, if they would not."""
    problem = socket_timeout_problem(layer)
    if problem:
        return problem
    failure = recent_failure()
    if failure:
        return f"a consumer lost the channel layer: {failure['error']}"
    return None


def transport() -> Result:
    """A message sent through the channel layer must come back, and the layer must be one on which
    idle websockets hold."""
    layer = get_channel_layer()
    if layer is None:
        return Result(KO, {"channelLayer": None}, reason="no channel layer is configured")
    redis = "redis" in type(layer).__module__
    customs = {"channelLayer": "redis" if redis else "in-memory"}
    try:
        received = async_to_sync(_round_trip)(layer)
    except Exception as error:
        health.failed(error)
        customs["error"] = f"{type(error).__name__}: {str(error)[:200]}"
        customs.update(health.details())
        return Result(WARNING, customs, reason=LAYER_DOWN.format(name="Redis" if redis else type(layer).__name__))
    health.succeeded()
    if not received:
        return Result(KO, customs, reason="a message sent through the channel layer did not come back")
    problem = layer_problem(layer)
    if problem:
        customs["problem"] = problem
        return Result(KO, customs, reason="live chat's channel layer drops websockets")
    return Result(OK, customs)


async def _round_trip(layer) -> bool:
    """Send (an error: the layer is unreachable), then receive (nothing in time: it lost the message)."""
    # The default prefix: channels_redis pops every process-local channel of one prefix in one loop,
    # and a probe of another prefix would wait forever while a consumer holds that loop.
    channel = await layer.new_channel()
    await asyncio.wait_for(layer.send(channel, {"type": "serverstatus.probe"}), timeout=SEND_SECONDS)
    try:
        message = await asyncio.wait_for(layer.receive(channel), timeout=RECEIVE_SECONDS)
    except TimeoutError:
        return False
    return message.get("type") == "serverstatus.probe"


def queue() -> Result:
    """The waiting queue, the connected operators and the live dialogs (from the database)."""
    return Result(
        OK,
        {
            "queue": queue_report(),
            "connectedOperators": connected_operators(),
            "currentLivechatDialogs": current_livechat_dialogs(),
        },
    )
