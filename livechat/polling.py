"""The reading of a dialog's stored live-chat events: the REST poll's (client-contract.md §4.3), one event
per poll, the first after `lastPoll`, and a websocket's that missed pushes while the channel layer was
down (every event after the last it got). A typing or queue notice with anything newer behind it is
stale and skipped, so that a visitor is not held back by old news."""

from dialogs.handover import Code

from .models import LivechatEvent

# Notices whose later twin makes them stale: only the newest one is worth showing.
REPLACEABLE = {Code.OPERATOR_WRITING, Code.WAITING_FOR_OPERATOR}
LOOKAHEAD = 20
# What a socket back from a channel-layer outage is sent at most (the newest; the history has the rest).
MISSED_MAX = 100


def next_event(dialog, last_poll_ms: int) -> LivechatEvent | None:
    events = list(LivechatEvent.objects.filter(dialog=dialog, at_ms__gt=last_poll_ms).order_by("at_ms")[:LOOKAHEAD])
    for index, event in enumerate(events):
        if event.code in REPLACEABLE and index + 1 < len(events):
            continue
        return event
    return None


def missed_events(dialog_uuid, after_ms: int) -> list[LivechatEvent]:
    """The events of a dialog after `after_ms` that are still news, oldest first."""
    newest = LivechatEvent.objects.filter(dialog__uuid=dialog_uuid, at_ms__gt=after_ms).order_by("-at_ms")
    events = list(newest[:MISSED_MAX])[::-1]
    return [
        event
        for index, event in enumerate(events)
        if not (event.code in REPLACEABLE and any(later.code == event.code for later in events[index + 1 :]))
    ]
