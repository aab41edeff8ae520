"""The analytics CSV exports: the days (exact dates, whatever the period's length), the rates with their
numerators and denominators, and the top knowledge. Cells a spreadsheet would run as a formula are quoted."""

import csv
import io

from .report import Rate, Report

TABLES = ("days", "rates", "knowledge")
# A cell starting with one of these is a formula to a spreadsheet (CSV injection): it gets a leading '.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe(value) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _percent(rate: Rate) -> str:
    return "" if rate.percent is None else f"{rate.percent:.1f}"


def day_rows(report: Report):
    yield [
        "date",
        "dialogs",
        "dialogs_direct",
        "dialogs_recovered",
        "dialogs_failed",
        "interactions",
        "questions",
        "understood",
        "reworded",
        "misunderstood",
        "feedback_positive",
        "feedback_negative",
        "livechat_requests",
        "livechat_taken",
        "livechat_average_wait_seconds",
    ]
    for day in report.days:
        wait = day.average_wait_seconds
        yield [
            f"{day.day:%Y-%m-%d}",
            day.dialogs,
            day.dialogs_direct,
            day.dialogs_recovered,
            day.dialogs_failed,
            day.interactions,
            day.questions,
            day.understood,
            day.reworded,
            day.misunderstood,
            day.positive,
            day.negative,
            day.livechat_requests,
            day.livechat_taken,
            "" if wait is None else f"{wait:.1f}",
        ]


def rate_rows(report: Report):
    yield ["rate", "numerator", "denominator", "percent", "counted"]
    rates = [
        ("dialogs_direct", report.dialogs_direct, "qualified dialogs"),
        ("dialogs_recovered", report.dialogs_recovered, "qualified dialogs"),
        ("dialogs_failed", report.dialogs_failed, "qualified dialogs"),
        ("understood", report.understood, "questions typed"),
        ("reworded", report.reworded, "questions typed"),
        ("misunderstood", report.misunderstood, "questions typed"),
        ("rewording_click", report.rewording_clicks, "rewordings offered"),
        ("satisfaction", report.satisfaction, "positive and negative feedback"),
        ("livechat_taken", report.livechat_taken, "live-chat requests"),
    ]
    for name, rate, counted in rates:
        yield [name, rate.numerator, rate.denominator, _percent(rate), counted]


def knowledge_rows(report: Report):
    yield ["knowledge_id", "knowledge", "uses", "feedback_positive", "feedback_negative", "satisfaction_percent"]
    for item in report.top_items:
        yield [item.item_id, safe(item.name), item.uses, item.positive, item.negative, _percent(item.satisfaction)]


def render(report: Report, table: str) -> str:
    rows = {"days": day_rows, "rates": rate_rows, "knowledge": knowledge_rows}[table](report)
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue()
