"""A survey's results: how many answers, counts per option for choice fields, the text answers listed,
and every answer as CSV (one row per submission, one column per field)."""

import csv
import io
from collections import Counter

from .definitions import WITH_OPTIONS, K, ordered_fields
from .models import SurveyAnswer, SurveyAnswerValue

# Text answers listed per field on the results page and in the API (the CSV holds them all).
TEXTS_SHOWN = 200


def field_results(survey) -> tuple[int, list[dict]]:
    """(number of answers, per field: id, label, type and either `counts` [(option, n)] or `texts`)."""
    fields = [item for item in ordered_fields(survey) if item.kind != K.TITLE]
    total = SurveyAnswer.objects.filter(survey=survey).count()
    counts: dict[int, Counter] = {item.pk: Counter() for item in fields}
    texts: dict[int, list[str]] = {item.pk: [] for item in fields}
    rows = (
        SurveyAnswerValue.objects.filter(answer__survey=survey, field__isnull=False)
        .order_by("-answer__created_at", "-answer_id", "id")
        .values_list("field_id", "value")
    )
    for field_id, value in rows.iterator(chunk_size=2000):
        if field_id in counts:
            counts[field_id][value] += 1
            if len(texts[field_id]) < TEXTS_SHOWN:
                texts[field_id].append(value)
    found = []
    for item in fields:
        shown = {"id": item.pk, "label": item.label, "type": item.kind}
        if item.kind in WITH_OPTIONS:
            labels = [option.label for option in item.options]
            shown["counts"] = [{"option": label, "count": counts[item.pk][label]} for label in labels]
        elif item.kind in (K.RADIO, K.CHECKBOX):
            shown["counts"] = [{"option": item.label, "count": sum(counts[item.pk].values())}]
        else:
            shown["texts"] = texts[item.pk]
            shown["answered"] = sum(counts[item.pk].values())
        found.append(shown)
    return total, found


def results_json(survey) -> dict:
    total, fields = field_results(survey)
    return {"surveyId": str(survey.uuid), "name": survey.name, "answers": total, "fields": fields}


def results_csv(survey):
    """The answers as CSV text chunks: date, context id, transport, then one column per field (several
    checked options joined with " | ")."""
    fields = [item for item in ordered_fields(survey) if item.kind != K.TITLE]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["date", "contextId", "transport", *[item.label or f"field {item.pk}" for item in fields]])
    answers = SurveyAnswer.objects.filter(survey=survey).select_related("dialog").prefetch_related("values")
    for answer in answers.order_by("created_at", "id").iterator(chunk_size=500):
        given: dict[int, list[str]] = {}
        for value in answer.values.all():
            given.setdefault(value.field_id, []).append(value.value)
        writer.writerow(
            [
                answer.created_at.isoformat(),
                str(answer.dialog.uuid),
                answer.transport,
                *[" | ".join(given.get(item.pk, [])) for item in fields],
            ]
        )
        if buffer.tell() > 64 * 1024:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
