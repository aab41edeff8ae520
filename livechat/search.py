"""Searching the account's dialogs from the console: by visitor (a variable's value such as their name or
e-mail, the page they were on, their context id; their visitor id for those who may see it), by text (what
was said or answered, and staff notes) and by date (the dialog's days overlap the range). At most
RESULTS_LIMIT dialogs, latest first, each with the first line that matched."""

import json
from datetime import date, datetime, time, timedelta

from django.db.models import Exists, OuterRef, Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from bots.servlet.errors import InvalidField
from dialogs.contexts import parse_context_id
from dialogs.models import Dialog, Interaction
from dialogs.notes import DialogNote

from . import supervision, supervisors
from .models import Operator

RESULTS_LIMIT = 50
TERM_MAX_CHARS = 200
EXCERPT_CHARS = 140


def search(operator: Operator, fields: dict) -> dict:
    visitor = term(fields, "visitor")
    text = term(fields, "text")
    since = day(fields, "from")
    until = day(fields, "to")
    if since and until and until < since:
        raise InvalidField("to", "the end of the range is before its start")
    dialogs = Dialog.objects.filter(bot__account_id=operator.account_id)
    if visitor:
        variables = Cast("variables", output_field=TextField())
        dialogs = dialogs.annotate(variables_text=variables).filter(visitor_match(operator, visitor))
    if text:
        said = Interaction.objects.filter(dialog_id=OuterRef("pk")).filter(
            Q(user_input__icontains=text) | Q(answer__icontains=text)
        )
        noted = DialogNote.objects.filter(dialog_id=OuterRef("pk"), text__icontains=text)
        dialogs = dialogs.filter(Exists(said) | Exists(noted))
    if since:
        dialogs = dialogs.filter(last_activity__gte=start_of(since))
    if until:
        dialogs = dialogs.filter(first_activity__lt=start_of(until + timedelta(days=1)))
    found = list(
        supervision.with_last_line(dialogs.select_related("bot").order_by("-last_activity", "-pk"))[:RESULTS_LIMIT]
    )
    monitored = supervisors.monitored_bot_ids(operator.account_id)
    results = supervision.summaries(found, operator, monitored)
    if text:
        excerpts = first_matches([dialog.pk for dialog in found], text)
        for result in results:
            result["excerpt"] = excerpts.get(result["id"], "")
    return {"type": "results", "results": results, "more": len(found) == RESULTS_LIMIT}


def term(fields: dict, name: str) -> str:
    value = fields.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidField(name, "text expected")
    value = " ".join(value.replace("\x00", "").split())
    if len(value) > TERM_MAX_CHARS:
        raise InvalidField(name, f"at most {TERM_MAX_CHARS} characters")
    return value


def day(fields: dict, name: str) -> date | None:
    value = fields.get(name)
    if value in (None, ""):
        return None
    try:
        return date.fromisoformat(str(value)[:40])
    except ValueError:
        raise InvalidField(name, "a date as YYYY-MM-DD expected") from None


def start_of(when: date) -> datetime:
    """Midnight of that day in the server's time zone."""
    return timezone.make_aware(datetime.combine(when, time.min))


def visitor_match(operator: Operator, value: str) -> Q:
    """On dialogs annotated with `variables_text` (their variables as JSON text)."""
    # SQLite keeps JSON with non-ASCII characters escaped (\u00e9): both spellings are looked for.
    escaped = json.dumps(value)[1:-1]
    found = Q(user_url__icontains=value) | Q(variables_text__icontains=value) | Q(variables_text__icontains=escaped)
    context_id = parse_context_id(value)
    if context_id is not None:
        found |= Q(uuid=context_id)
    # The visitor's id is personal data: only those who may see it may find dialogs by it.
    if operator.user.has_perm("dialogs.view_visitor_id"):
        found |= Q(client_id=value)
    return found


def first_matches(dialog_ids: list[int], text: str) -> dict[int, str]:
    """The first line of each dialog that says `text`, cut around it."""
    rows = (
        Interaction.objects.filter(dialog_id__in=dialog_ids)
        .filter(Q(user_input__icontains=text) | Q(answer__icontains=text))
        .order_by("dialog_id", "created_at", "pk")
        .values_list("dialog_id", "user_input", "answer")
    )
    excerpts: dict[int, str] = {}
    for dialog_id, said, answer in rows.iterator():
        if dialog_id in excerpts:
            continue
        for candidate in (said, supervision.panel_plain(answer)):
            if text.lower() in (candidate or "").lower():
                excerpts[dialog_id] = around(candidate, text)
                break
    return excerpts


def around(source: str, text: str) -> str:
    source = " ".join(source.split())
    at = source.lower().find(text.lower())
    if at < 0:
        return source[:EXCERPT_CHARS]
    start = max(0, at - EXCERPT_CHARS // 3)
    cut = source[start : start + EXCERPT_CHARS]
    return ("…" if start else "") + cut + ("…" if start + EXCERPT_CHARS < len(source) else "")
