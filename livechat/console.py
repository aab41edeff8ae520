"""The operators' console as a service: what it shows when it opens, and each action it sends
({"action": …}) carried out by the live-chat services. The websocket consumer only parses and replies."""

from django.utils import timezone

from bots.servlet.errors import InvalidField, MissingField

from . import (
    callbacks,
    canned,
    names,
    operating,
    panel,
    presence,
    queue,
    suggestions,
    supervision_actions,
    supervisors,
)
from .models import LivechatRequest, Operator


def connect(user) -> Operator:
    operator = presence.operator_for(user)
    presence.heartbeat(operator)
    return operator


def heartbeat(operator_id: int) -> None:
    Operator.objects.filter(pk=operator_id).update(last_seen_at=timezone.now())


def state(operator: Operator) -> dict:
    """Everything the console shows when it opens (or reconnects): nothing is lost by a reload."""
    now = timezone.now()
    operator.refresh_from_db()
    mine = (
        LivechatRequest.objects.filter(operator=operator, status=LivechatRequest.Status.ASSIGNED)
        .select_related("dialog__bot", "operator__user", "competency")
        .order_by("assigned_at")
    )
    waiting = queue.queued(operator.account_id).select_related("operator__user")
    team = (
        Operator.objects.filter(account_id=operator.account_id).select_related("user").prefetch_related("competencies")
    )
    return {
        "type": "state",
        "now": now.isoformat(),  # the console measures waits against the server's clock
        "operator": panel.operator_card(operator, now),
        "dialogs": [panel.card(request) for request in mine],
        "queue": [panel.card(request, place=place) for place, request in enumerate(waiting, start=1)],
        "operators": [panel.operator_card(member, now) for member in team],
        "competencies": operating.competency_names(operator.account_id),
        "callbacks": callbacks.listing(operator.account_id),
        "supervisor": supervisors.is_supervisor(operator.user_id),
    }


def act(operator_id: int, action: dict) -> dict | None:
    """Carry out one console action; the reply goes back to the console that sent it."""
    operator = Operator.objects.select_related("user").get(pk=operator_id)
    name = str(action.get("action", ""))
    dialog = action.get("dialog")
    if name == "heartbeat":
        presence.heartbeat(operator)
        return None
    if name == "status":
        presence.set_status(operator, str(action.get("status", "")))
        operator.refresh_from_db()  # becoming available may have brought waiting dialogs
        return {"type": "operator", "operator": panel.operator_card(operator)}
    if name == "name":
        # The name visitors see (names.py); "" goes back to the first name.
        names.set_display_name(operator, action.get("name", ""))
        return {"type": "operator", "operator": panel.operator_card(operator)}
    if name == "open":
        return operating.open_dialog(operator, dialog)
    if name == "send":
        text, suggestion = str(action.get("text", "")), action.get("suggestion")
        return {"type": "sent", "message": operating.send_message(operator, dialog, text, suggestion=suggestion)}
    if name == "typing":
        operating.set_typing(operator, dialog, bool(action.get("typing")))
        return None
    if name == "take":
        return {"type": "taken", "dialog": operating.take(operator, dialog)}
    if name == "transfer":
        card = operating.transfer(
            operator,
            dialog,
            to_login=str(action.get("operator") or "").strip(),
            to_competency=str(action.get("competency") or "").strip(),
        )
        return {"type": "transferred", "dialog": card}
    if name == "end":
        operating.end(operator, dialog)
        return {"type": "ok", "action": "end", "dialog": dialog}
    if name == "canned":
        request = operating.find_request(operator, dialog, lock=False)
        return {"type": "canned", "answers": canned.search(request, str(action.get("q", "")))}
    if name == "suggest":
        return suggestions.for_request(operating.find_request(operator, dialog, lock=False))
    if name == "callback":
        return {
            "type": "callback",
            "callback": callbacks.act(
                operator, action.get("id"), str(action.get("do", "")), str(action.get("outcome", ""))
            ),
        }
    if name in supervision_actions.ACTIONS:
        return supervision_actions.act(operator, name, action)
    if not name:
        raise MissingField("action")
    raise InvalidField("action", f"unknown action {name[:40]!r}")
