"""What the platform holds about one visitor of a bot (their clientId): the dialogs, with what was said,
their variables, files, survey answers and whatever else hangs on them. `summary` counts it for the
request's page, `export` gives it as the JSON the visitor receives."""

from collections import Counter

from django.db.models import Count, Max, Min
from django.utils import timezone

from knowledge.plain_text import answer_text

from ..models import Dialog, GdprRequest, Interaction
from ..surveys.models import SurveyAnswer

# Rows fetched from the database at a time: a visitor with many dialogs is read in constant memory.
CHUNK_SIZE = 500


class NoVisitor(ValueError):
    """The request names no visitor: nothing may be sent or erased for it (every anonymous dialog matches)."""


def visitor_dialogs(request: GdprRequest):
    client_id = (request.client_id or "").strip()
    if not client_id:
        raise NoVisitor("This request names no visitor id (clientId): no data can be matched to it.")
    return Dialog.objects.filter(bot_id=request.bot_id, client_id=client_id)


def summary(request: GdprRequest) -> dict:
    """How much is held: dialogs, interactions, files, survey answers, and the dates they span."""
    try:
        dialogs = visitor_dialogs(request)
    except NoVisitor:
        return {"dialogs": 0, "interactions": 0, "files": 0, "surveys": 0, "first": None, "last": None}
    totals = dialogs.aggregate(
        dialogs=Count("id", distinct=True), first=Min("first_activity"), last=Max("last_activity")
    )
    totals["interactions"] = Interaction.objects.filter(dialog__in=dialogs).count()
    totals["files"] = dialogs.filter(uploads__isnull=False).values("uploads").count()
    totals["surveys"] = SurveyAnswer.objects.filter(dialog__in=dialogs).count()
    return totals


def export(request: GdprRequest, service: str) -> tuple[dict, Counter]:
    """The visitor's data as JSON-ready values, and what it holds per kind."""
    counts = Counter()
    dialogs = []
    for dialog in visitor_dialogs(request).order_by("first_activity", "id").iterator(chunk_size=CHUNK_SIZE):
        counts["dialogs"] += 1
        dialogs.append(_dialog(dialog, counts))
    data = {
        "service": service,
        "clientId": request.client_id,
        "exportedAt": timezone.now().isoformat(),
        "dialogs": dialogs,
    }
    return data, counts


def _dialog(dialog: Dialog, counts: Counter) -> dict:
    interactions = []
    for row in dialog.interactions.order_by("created_at", "id").iterator(chunk_size=CHUNK_SIZE):
        counts["interactions"] += 1
        interactions.append(_interaction(row))
    files = [
        {"name": upload.name, "size": upload.size, "type": upload.content_type, "sentAt": upload.created_at.isoformat()}
        for upload in dialog.uploads.all()
    ]
    counts["files"] += len(files)
    surveys = []
    for answer in dialog.survey_answers.select_related("survey").prefetch_related("values"):
        surveys.append(
            {
                "survey": answer.survey.title,
                "sentAt": answer.created_at.isoformat(),
                "answers": [{"field": value.label, "value": value.value} for value in answer.values.all()],
            }
        )
    counts["surveys"] += len(surveys)
    return {
        "contextId": str(dialog.uuid),
        "started": dialog.first_activity.isoformat(),
        "lastActivity": dialog.last_activity.isoformat(),
        "language": dialog.language,
        "space": dialog.space,
        "browser": dialog.browser,
        "os": dialog.os,
        "page": dialog.user_url,
        "variables": dialog.variables if isinstance(dialog.variables, dict) else {},
        "interactions": interactions,
        "files": files,
        "surveys": surveys,
    }


def _interaction(row: Interaction) -> dict:
    entry = {
        "time": row.created_at.isoformat(),
        "from": "operator" if row.human else "bot",
        "question": row.user_input,
        "answer": plain(row.answer),
    }
    if row.feedback:
        entry["feedback"] = row.feedback
    if row.feedback_comment:
        entry["feedbackComment"] = row.feedback_comment
    return entry


def plain(answer_html: str) -> str:
    """An answer as text: its tags dropped (a line break a space), its entities read, its blank runs one space."""
    return answer_text(answer_html)
