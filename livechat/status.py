"""Live chat in the server status: connected operators, live dialogs, and the check of its transport
(the channel layer) and of the waiting queue."""

from django.utils import timezone

from .layer import recent_failure, socket_timeout_problem
from .models import LivechatRequest, Operator
from .queue import alive_since


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


def inspect(layer) -> tuple[str | None, dict]:
    """For the server status's livechat check: what is wrong with the layer, and the queue."""
    return layer_problem(layer), {
        "queue": queue_report(),
        "connectedOperators": connected_operators(),
        "currentLivechatDialogs": current_livechat_dialogs(),
    }
