"""The reading of a dialog's stored live-chat events: the REST poll's (client-contract.md §4.3), one event
per poll, the first after `lastPoll`, and a websocket's that missed pushes while the channel layer was
down (every event after the last it got). A typing or queue notice with anything newer behind it is
stale and skipped, so that a visitor is not held back by old news. Each is sent shaped by notices.py
(events stored before it was written included)."""

from dialogs.handover import Code

from . import notices
from .models import LivechatEvent

# Notices whose later twin makes them stale: only the newest one is worth showing.
REPLACEABLE = {Code.OPERATOR_WRITING, Code.WAITING_FOR_OPERATOR}
LOOKAHEAD = 20
# What a socket back from a channel-layer outage is sent at most (the newest; the history has the rest).
MISSED_MAX = 100


def next_event(dialog, last_poll_ms: int) -> LivechatEvent | None:
    """The event the poll answers with, or None (nothing new). Events that are not news are passed over;
    when the last one read is such an event, the poll answers a bare cursor at its time (no code, no
    text): the chatbox moves its lastPoll past them and shows nothing, instead of asking for them again
    on every poll (and never stays stuck behind LOOKAHEAD of them)."""
    events = list(LivechatEvent.objects.filter(dialog=dialog, at_ms__gt=last_poll_ms).order_by("at_ms")[:LOOKAHEAD])
    for index, event in enumerate(events):
        last = index + 1 == len(events)
        if event.code in REPLACEABLE and not last:
            continue
        if typing_stopped(event):
            # CV5's polling shows the typing dots for any OperatorWritingStatus, text or not; its dots go
            # away by themselves, so "stopped" is not news there.
            if last:
                return cursor(event)
            continue
        return shaped(event)
    return None


def typing_stopped(event: LivechatEvent) -> bool:
    return event.code == Code.OPERATOR_WRITING and not event.values.get("text")


def cursor(event: LivechatEvent) -> LivechatEvent:
    """A stand-in for `event` that only moves the chatbox's lastPoll to its time (never stored)."""
    at = event.at_ms
    values = {"pollUpdatedInteractionDate": at, "serverTime": at}
    return LivechatEvent(dialog_id=event.dialog_id, at_ms=at, frame_type="notification", values=values)


def shaped(event: LivechatEvent) -> LivechatEvent:
    event.values = notices.for_visitor(event.values)
    return event


def missed_events(dialog_uuid, after_ms: int) -> list[LivechatEvent]:
    """The events of a dialog after `after_ms` that are still news, oldest first."""
    newest = LivechatEvent.objects.filter(dialog__uuid=dialog_uuid, at_ms__gt=after_ms).order_by("-at_ms")
    events = list(newest[:MISSED_MAX])[::-1]
    return [
        shaped(event)
        for index, event in enumerate(events)
        if not (event.code in REPLACEABLE and any(later.code == event.code for later in events[index + 1 :]))
    ]
