"""The REST poll's reading of a dialog's live-chat events (client-contract.md §4.3): one event per
poll, the first after `lastPoll`; a typing or queue notice with anything newer behind it is stale
and skipped, so that a visitor polling every 2.5 s is not held back by old news."""

from dialogs.handover import Code

from .models import LivechatEvent

# Notices whose later twin makes them stale: only the newest one is worth showing.
REPLACEABLE = {Code.OPERATOR_WRITING, Code.WAITING_FOR_OPERATOR}
LOOKAHEAD = 20


def next_event(dialog, last_poll_ms: int) -> LivechatEvent | None:
    events = list(LivechatEvent.objects.filter(dialog=dialog, at_ms__gt=last_poll_ms).order_by("at_ms")[:LOOKAHEAD])
    for index, event in enumerate(events):
        if event.code in REPLACEABLE and index + 1 < len(events):
            continue
        return event
    return None
