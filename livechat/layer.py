"""What the server status needs to know of the channel layer live chat rides on: a Redis read timeout
that would drop idle sockets (config/settings.py sets it above the layer's blocking read), and
consumers that lost their layer recently.

A Redis that is down (connections refused or closed) is not remembered: the status's own round trip
through the layer reports it while it lasts, and a failure remembered for minutes would keep live chat
Ko long after Redis came back. What is remembered is what a round trip cannot see, such as reads that
time out on sockets that stay idle."""

import contextlib
import time

from django.core.cache import cache

# channels_redis's blocking read (RedisChannelLayer.brpop_timeout).
LAYER_BLOCKING_READ_SECONDS = 5
FAILURE_KEY = "livechat:layer-failure"
# A failure this recent makes the status Ko; after that, the layer is judged by its round trip.
FAILURE_MEMORY_SECONDS = 300


def socket_timeout_problem(layer) -> str | None:
    """Why this layer would drop idle sockets, if it would: a Redis read timeout not above the
    layer's own blocking read."""
    hosts = getattr(layer, "hosts", None)
    if not hosts:
        return None
    blocking = getattr(layer, "brpop_timeout", LAYER_BLOCKING_READ_SECONDS)
    for host in hosts:
        timeout = host.get("socket_timeout", _redis_default_timeout())
        if timeout is not None and timeout <= blocking:
            return f"Redis socket timeout {timeout} s is not above the layer's blocking read of {blocking} s"
    return None


def _redis_default_timeout():
    try:
        from redis._defaults import DEFAULT_SOCKET_TIMEOUT
    except ImportError:  # older redis-py: no default timeout
        return None
    return DEFAULT_SOCKET_TIMEOUT


def record_layer_failure(error: Exception) -> None:
    """A consumer lost its channel layer: remembered (in the shared cache) for the server status,
    unless Redis was simply unreachable (the status's own round trip tells that while it lasts)."""
    if is_unreachable(error):
        return
    # The cache may be the same Redis that just failed: then the status's own round trip tells.
    with contextlib.suppress(Exception):
        cache.set(FAILURE_KEY, {"at": time.time(), "error": f"{type(error).__name__}: {str(error)[:200]}"}, 3600)


def is_unreachable(error: BaseException) -> bool:
    """Redis simply could not be reached (refused, reset): what an outage looks like."""
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
    except ImportError:
        return isinstance(error, ConnectionRefusedError | ConnectionResetError)
    return isinstance(error, RedisConnectionError | ConnectionRefusedError | ConnectionResetError)


def recent_failure() -> dict | None:
    try:
        failure = cache.get(FAILURE_KEY)
    except Exception:
        return None
    if failure and time.time() - failure["at"] < FAILURE_MEMORY_SECONDS:
        return failure
    return None
