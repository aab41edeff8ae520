"""One page of a bot's error log: its client error reports (chat/error) and its server-side chat errors,
newest first, filtered by period, kind and code."""

from dataclasses import dataclass
from datetime import UTC

from django.db.models import CharField, F, Value

from bots.logs.models import ServerError
from bots.logs.recording import store_held_errors
from bots.servlet.errors import InvalidField
from bots.servlet.params import ServletParams
from dialogs.bulk.period import Period, period_from
from dialogs.models import ClientError

KINDS = ("all", "client", "server")
PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
# Deep enough for any real log (100 million entries at the largest page size), small enough that the
# offset stays a plain integer for every database.
MAX_PAGE = 1_000_000


@dataclass(frozen=True)
class LogQuery:
    period: Period
    kind: str
    code: str
    page: int
    page_size: int

    @classmethod
    def from_params(cls, params: ServletParams) -> "LogQuery":
        kind = params.text("kind", default="all").strip().lower() or "all"
        if kind not in KINDS:
            raise InvalidField("kind", f"'{kind[:40]}' is not one of {', '.join(KINDS)}")
        page = params.integer("page", default=1, minimum=1)
        if page > MAX_PAGE:
            raise InvalidField("page", f"must be at most {MAX_PAGE}")
        page_size = params.integer("pageSize", default=PAGE_SIZE, minimum=1)
        if page_size > MAX_PAGE_SIZE:
            raise InvalidField("pageSize", f"must be at most {MAX_PAGE_SIZE}")
        code = params.text("code", max_length=500).strip()
        return cls(period_from(params), kind, code, page, page_size)


# Per kind: its model, and the fields a period's start, its end and a code are compared with. A server
# row covers its minute up to its last error: it is in the period if that span meets it.
SOURCES = {
    "client": (ClientError, "created_at", "created_at", "error"),
    "server": (ServerError, "last_at", "minute", "code"),
}


def log_rows(kind: str, bot, query: LogQuery):
    """The bot's entries of that kind for the query's period and code."""
    model, since, until, code = SOURCES[kind]
    rows = model.objects.filter(bot=bot)
    if query.period.start:
        rows = rows.filter(**{f"{since}__gte": query.period.start})
    if query.period.end:
        rows = rows.filter(**{f"{until}__lt": query.period.end})
    if query.code:
        rows = rows.filter(**{code: query.code})
    return rows


def log_page(bot, query: LogQuery) -> dict:
    """The page as the API answers it: the total, the next page (or null) and the entries."""
    store_held_errors()
    kinds = list(SOURCES) if query.kind == "all" else [query.kind]
    sources = {kind: log_rows(kind, bot, query) for kind in kinds}
    total = sum(rows.count() for rows in sources.values())
    offset = (query.page - 1) * query.page_size
    entries = _entries(sources, offset, query.page_size) if offset < total else []
    return {
        "botUUID": str(bot.uuid),
        "kind": query.kind,
        "code": query.code or None,
        "from": _iso(query.period.start),
        "to": _iso(query.period.end),
        "page": query.page,
        "pageSize": query.page_size,
        "total": total,
        "nextPage": query.page + 1 if offset + query.page_size < total else None,
        "entries": entries,
    }


def _entries(sources: dict, offset: int, limit: int) -> list[dict]:
    # Both kinds merged by time in the database (a UNION ordered and cut to the page), then the page's
    # rows read in full: one query per kind, whatever the page.
    keyed = [
        rows.order_by()
        .annotate(kind=Value(kind, output_field=CharField()), at=F(TIME[kind]))
        .values_list("kind", "at", "pk")
        for kind, rows in sources.items()
    ]
    merged = keyed[0].union(*keyed[1:], all=True) if len(keyed) > 1 else keyed[0]
    page = list(merged.order_by("-at", "-kind", "-pk")[offset : offset + limit])
    found = {
        kind: SOURCES[kind][0].objects.in_bulk([pk for row_kind, _, pk in page if row_kind == kind]) for kind in sources
    }
    return [SHOW[kind](found[kind][pk]) for kind, _, pk in page]


def client_entry(error: ClientError) -> dict:
    return {
        "kind": "client",
        "id": error.pk,
        "date": _iso(error.created_at),
        "code": error.error,
        "message": error.message,
        "contextId": error.context_id,
        "solutionUsed": error.solution_used,
        "stackTrace": error.stack_trace,
        "jsCreation": error.js_creation,
        "browser": error.browser,
        "os": error.os,
        "userUrl": error.user_url,
    }


def server_entry(error: ServerError) -> dict:
    return {
        "kind": "server",
        "id": error.pk,
        "date": _iso(error.minute),
        "lastDate": _iso(error.last_at),
        "count": error.count,
        "operation": error.operation,
        "status": error.status,
        "code": error.code,
        "message": error.message,
    }


TIME = {"client": "created_at", "server": "last_at"}
SHOW = {"client": client_entry, "server": server_entry}


def _iso(moment) -> str | None:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment else None
