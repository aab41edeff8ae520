"""Top knowledge, the chatbox's start screen (REST and websocket alike): the bot's featured items first,
in knowledge order (the questions its editors chose), then the most used items of the period, counted
from stored interactions (qualification-mode dialogs are left out, as in the product's analytics), up
to the number asked. Usage never pushes a featured item out."""

from datetime import datetime, time, timedelta

from django.db.models import Case, Count, IntegerField, Value, When
from django.utils import timezone

from bots.servlet.envelope import json_string
from bots.servlet.errors import InvalidField, NotFound
from bots.servlet.params import ServletParams
from knowledge.models import KnowledgeItem
from knowledge.snapshot import Snapshot

from .clock import epoch_ms
from .models import ANSWERED_ID, Interaction

PERIODS = (
    "Today",
    "Yesterday",
    "Last7Days",
    "CurrentMonth",
    "LastMonth",
    "Last30Days",
    "Last3Months",
    "Last6Months",
    "Last12Months",
)


def period_bounds(period: str, now: datetime | None = None) -> tuple[datetime, datetime]:
    """[start, end) of a period name, in the server's time zone."""
    now = timezone.localtime(now or timezone.now())
    wanted = {name.lower(): name for name in PERIODS}.get((period or "Last30Days").strip().lower())
    if wanted is None:
        raise InvalidField("period", f"'{period[:40]}' is not one of {', '.join(PERIODS)}")
    midnight = timezone.make_aware(datetime.combine(now.date(), time.min), now.tzinfo)
    month_start = midnight.replace(day=1)
    if wanted == "Today":
        return midnight, now
    if wanted == "Yesterday":
        return midnight - timedelta(days=1), midnight
    if wanted == "CurrentMonth":
        return month_start, now
    if wanted == "LastMonth":
        previous = (month_start - timedelta(days=1)).replace(day=1)
        return previous, month_start
    days = {"Last7Days": 7, "Last30Days": 30, "Last3Months": 91, "Last6Months": 182, "Last12Months": 365}[wanted]
    return now - timedelta(days=days), now


def top_knowledge(
    snapshot: Snapshot,
    *,
    language: str,
    space_id: int,
    period: str,
    limit: int,
    qualification: bool = False,
    tag_ids: set[int] | None = None,
) -> list[dict]:
    start, end = period_bounds(period)
    allowed = snapshot.allowed_items(language, space_id, qualification)
    first_formulation = _first_formulations(snapshot, language)

    def shown(item_id: int) -> bool:
        if item_id not in allowed or item_id not in first_formulation:
            return False
        return tag_ids is None or snapshot.items[item_id].tag_id in tag_ids

    featured = [item_id for item_id in featured_items(snapshot) if shown(item_id)][:limit]
    chosen = set(featured)
    usage = (
        Interaction.objects.filter(bot_id=snapshot.bot_id, counted=True, created_at__gte=start, created_at__lt=end)
        .values(item=ANSWERED_ID)
        .filter(item__isnull=False)
        .annotate(usage=Count("id"))
    )
    # The featured items' own usage comes first (one query for both): once past it, the rest is by usage.
    first = Case(When(item__in=featured, then=Value(0)), default=Value(1), output_field=IntegerField())
    usage = usage.order_by(first, "-usage", "item") if featured else usage.order_by("-usage", "item")
    counts: dict[int, int] = {}
    most_used: list[tuple[int, int]] = []
    for row in usage.iterator():
        item_id = row["item"]
        if item_id in chosen:
            counts[item_id] = row["usage"]
        elif len(featured) + len(most_used) >= limit:
            break
        elif shown(item_id):
            most_used.append((item_id, row["usage"]))
    articles = [(item_id, counts.get(item_id, 0)) for item_id in featured] + most_used
    return _articles(snapshot, first_formulation, articles, limit)


def featured_items(snapshot: Snapshot) -> list[int]:
    """The bot's featured items in knowledge order, read once per knowledge version."""
    return snapshot.memo(
        "featured_items",
        lambda: list(
            KnowledgeItem.objects.filter(bot_id=snapshot.bot_id, featured=True)
            .order_by("position", "id")
            .values_list("id", flat=True)
        ),
    )


def _articles(snapshot: Snapshot, first_formulation: dict, counted, limit: int) -> list[dict]:
    articles = []
    for item_id, usage in counted:
        formulation_id, text = first_formulation[item_id]
        articles.append(
            {
                "reword": text,
                "pathTag": snapshot.tag_path(snapshot.items[item_id].tag_id),
                "usage": usage,
                "inputConditionId": formulation_id,
                "knowledgeId": item_id,
            }
        )
        if len(articles) >= limit:
            break
    return articles


def _first_formulations(snapshot: Snapshot, language: str) -> dict[int, tuple[int, str]]:
    """Each item's question as shown to users: its first rewordable formulation in the language
    (group references such as {carte} are patterns, not questions)."""
    found: dict[int, tuple[int, str]] = {}
    for fid, item_id, text, rewordable in snapshot.formulations.get(language, ()):
        if rewordable and "{" not in text and item_id not in found:
            found[item_id] = (fid, text)
    return found


def top_knowledge_values(snapshot: Snapshot, params: ServletParams) -> dict:
    """The topKnowledgeResponse values for a request's fields (REST form or websocket frame)."""
    tag_ids, tag_name = _tag_filter(snapshot, params)
    articles = top_knowledge(
        snapshot,
        language=snapshot.language(params.text("language")),
        space_id=snapshot.space_id(params.text("space")) or snapshot.default_space_id,
        period=params.text("period", default="Last30Days"),
        limit=params.integer("maxKnowledge", default=3, minimum=1, maximum=100),
        qualification=params.boolean("qualificationMode"),
        tag_ids=tag_ids,
    )
    # The chatbox JSON.parses the decoded string; the articles inside are plain.
    return {
        "knowledgeArticles": json_string(articles),
        "serverTime": epoch_ms(),
        "tagName": tag_name,
    }


def _tag_filter(snapshot: Snapshot, params: ServletParams) -> tuple[set[int] | None, str]:
    """The `tag` (a name or a numeric tagID) and, with includeTagChildren, its sub-tags."""
    value = params.text("tagID", "tagId", "tag").strip()
    if not value:
        return None, ""
    # ASCII digits only: str.isdigit() also accepts "³", which int() refuses (a 500 found by fuzzing).
    if value.isascii() and value.isdigit() and int(value) in snapshot.tag_names:
        tag_id = int(value)
    else:
        tag_id = next((tid for tid, name in snapshot.tag_names.items() if name.lower() == value.lower()), None)
    if tag_id is None:
        raise NotFound(f"The bot has no tag '{value[:100]}'.", code="UNKNOWN_TAG")
    wanted = {tag_id}
    if params.boolean("includeTagChildren"):
        wanted = {tid for tid in snapshot.tag_names if tag_id in snapshot.tag_lineage(tid)}
    return wanted, snapshot.tag_names[tag_id]
