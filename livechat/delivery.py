"""Delivery of live chat: what a visitor must see is stored as an event first, then pushed to the
dialog's channel group once the transaction commits; operators' consoles get their pushes the same way.

One source of truth, two deliveries: the websocket gets each event as it is stored, the REST poll
reads the stored events after its `lastPoll` (architecture.md §3).
"""

import json

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from bots.servlet.envelope import encode_values
from dialogs.clock import epoch_ms

from . import notices
from .layer_health import health
from .models import LivechatEvent, LivechatRequest


def dialog_group(dialog_uuid) -> str:
    """The group of a dialog's chatbox sockets (group names allow letters, digits, '.', '-', '_')."""
    return f"dialog.{str(dialog_uuid).replace('-', '')}"


def operator_group(operator_id: int) -> str:
    return f"operator.{operator_id}"


def account_group(account_id: int) -> str:
    """Every open console of an account: the waiting queue and the operators' presence."""
    return f"livechat.account.{account_id}"


def frame_text(frame_type: str, values: dict) -> str:
    """A chatbox frame as the socket sends it: type plain, every string under values base64."""
    return json.dumps({"type": frame_type, "values": encode_values(values)}, separators=(",", ":"))


def to_visitor(
    request: LivechatRequest, frame_type: str, values: dict, now=None, *, locked: bool = False
) -> LivechatEvent:
    """Store an event for the visitor of `request`'s dialog, then push it after commit.

    The request row is locked while the event takes the next time of its dialog, so that the poll's
    cursor (pollUpdatedInteractionDate) is strictly increasing even with several server processes.
    `locked`: the caller read `request` under that lock in its transaction (a message's hot path).
    """
    with transaction.atomic(savepoint=not locked):
        if locked:
            last = request.last_event_ms
        else:
            rows = LivechatRequest.objects.select_for_update().filter(pk=request.pk)
            last = rows.values_list("last_event_ms", flat=True).first() or 0
        at_ms = max(epoch_ms(now), last + 1)
        LivechatRequest.objects.filter(pk=request.pk).update(last_event_ms=at_ms)
        request.last_event_ms = at_ms
        values = {**notices.for_visitor(values), "pollUpdatedInteractionDate": at_ms, "serverTime": at_ms}
        event = LivechatEvent.objects.create(
            dialog_id=request.dialog_id,
            request=request,
            at_ms=at_ms,
            frame_type=frame_type,
            code=str(values.get("code") or values.get("typeResponse") or "")[:60],
            values=values,
        )
        group = dialog_group(request.dialog.uuid)
        text = frame_text(frame_type, values)
        # `at`: a socket that gets it knows where it is (layer_back sends what it missed after that).
        transaction.on_commit(lambda: send(group, {"type": "livechat.push", "text": text, "at": at_ms}))
    return event


def to_operator(operator_id: int, message: dict):
    """Push a console message to one operator's open consoles, after commit."""
    group = operator_group(operator_id)
    transaction.on_commit(lambda: send(group, {"type": "console.push", "message": message}))


def to_account(account_id: int, message: dict):
    """Push a console message to every open console of an account, after commit."""
    group = account_group(account_id)
    transaction.on_commit(lambda: send(group, {"type": "console.push", "message": message}))


def send(group: str, message: dict):
    """Best effort: the message is stored already, so a channel layer that fails loses no data (the
    poll, the history and the console's reload read the database). A failure is the layer's outage,
    logged once by layer_health; while it lasts pushes are not tried (a talk never waits on Redis)."""
    layer = get_channel_layer()
    if layer is None or not health.usable():
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception as error:
        health.failed(error)
    else:
        health.succeeded()
