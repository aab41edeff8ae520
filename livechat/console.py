"""The operators' console as a service: what it shows when it opens, and each action it sends
({"action": …}) carried out by the live-chat services. The websocket consumer only parses and replies."""

from django.db.models import Q
from django.utils import timezone
from django.utils.html import strip_tags

from bots.servlet.errors import InvalidField, MissingField
from knowledge.models import Answer, KnowledgeItem

from . import callbacks, operating, panel, presence, queue
from .models import LivechatRequest, Operator

CANNED_LIMIT = 20


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
    if name == "open":
        return operating.open_dialog(operator, dialog)
    if name == "send":
        return {"type": "sent", "message": operating.send_message(operator, dialog, str(action.get("text", "")))}
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
        return {"type": "canned", "answers": canned_answers(operator, dialog, str(action.get("q", "")))}
    if name == "callback":
        return {
            "type": "callback",
            "callback": callbacks.act(
                operator, action.get("id"), str(action.get("do", "")), str(action.get("outcome", ""))
            ),
        }
    if not name:
        raise MissingField("action")
    raise InvalidField("action", f"unknown action {name[:40]!r}")


def canned_answers(operator: Operator, dialog, search: str) -> list[dict]:
    """The knowledge base's published predefined answers for the dialog's bot and language, searchable."""
    request = operating.find_request(operator, dialog, lock=False)
    items = KnowledgeItem.objects.filter(
        bot_id=request.bot_id, kind=KnowledgeItem.Kind.PREDEFINED, status=KnowledgeItem.Status.PUBLISHED
    )
    answers = Answer.objects.filter(item__in=items, language=request.dialog.language).select_related("item")
    search = search.strip()[:100]
    if search:
        answers = answers.filter(Q(item__label__icontains=search) | Q(text__icontains=search))
    found, seen = [], set()
    for answer in answers.order_by("item__position", "item_id", "space_id"):
        if answer.item_id in seen:
            continue
        seen.add(answer.item_id)
        found.append({"id": answer.item_id, "label": answer.item.label, "text": strip_tags(answer.text).strip()})
        if len(found) >= CANNED_LIMIT:
            break
    return found
