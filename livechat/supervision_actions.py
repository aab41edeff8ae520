"""The console's actions of the All view, the search, notes and supervision ({"action": …} → a reply), carried
out by supervision.py and search.py; console.act hands them over by name."""

from . import search, supervision


def act(operator, name: str, action: dict) -> dict:
    conversation = action.get("conversation")
    if name == "all":
        return supervision.everything(operator)
    if name == "search":
        return search.search(operator, action)
    if name == "read":
        return supervision.read(operator, conversation)
    if name == "note":
        # From a dialog the operator holds (its live-chat id), or from the reading pane (the dialog's id).
        if action.get("dialog") is not None:
            return supervision.note(operator, action.get("text"), request_id=action.get("dialog"))
        return supervision.note(operator, action.get("text"), conversation_id=conversation)
    if name == "join":
        return supervision.join(operator, conversation)
    return supervision.take_over(operator, conversation)


ACTIONS = frozenset({"all", "search", "read", "note", "join", "takeover"})
