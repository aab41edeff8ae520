"""The inputs learning looks at: what visitors typed that the bot misunderstood or answered with rewordings,
and what operators answered in live chat without a suggested answer, in the last days, newest first and
capped, outside qualification mode, one entry per normalised text."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils import timezone

from dialogs.engine import TypeResponse
from dialogs.models import Interaction
from knowledge.learning.models import IgnoredGroup
from knowledge.matching import normalise

from . import operators

# Bounded cost: the page reads at most MAX_INPUTS interactions of the last WINDOW_DAYS.
WINDOW_DAYS = 90
MAX_INPUTS = 2000
MISUNDERSTOOD = (TypeResponse.MISUNDERSTOOD, TypeResponse.TOO_MANY_MISUNDERSTOOD)
REWORDED = (TypeResponse.ONE_REWORD, TypeResponse.SEVERAL_REWORDS)
# The ignored groups remembered (newest first): older ones no longer hide anything.
MAX_IGNORED_GROUPS = 500
MAX_IGNORED_TEXTS = 2000  # per language, the ignored inputs that lead the grouping
# Where the inputs come from: the bot's misunderstood and reworded ones, and operators' unsuggested answers.
SOURCES = ("", "operators")  # "": all of them


@dataclass
class Input:
    """One distinct input (by normalised text): the way it was last typed, how often, and how answered."""

    key: str
    text: str
    language: str
    misunderstood: int = 0
    reworded: int = 0
    by_operator: int = 0  # answered by an operator who used no suggestion (operators.py)
    last_seen: datetime | None = None
    reworded_items: list[int] = field(default_factory=list)
    ignored: bool = False  # an input of an ignored group: it leads the grouping, and its group stays hidden

    @property
    def count(self) -> int:
        return self.misunderstood + self.reworded + self.by_operator


@dataclass
class Inputs:
    by_language: dict[str, list[Input]]
    read: int  # interactions read
    capped: bool  # MAX_INPUTS reached (by the bot's inputs or the operators'): older ones were left out
    hidden: int  # interactions left out as ignored or already a formulation
    since: datetime
    ignored: dict[str, list[str]] = field(default_factory=dict)  # per language, the ignored groups' inputs


def recent(bot, known: dict[str, set[str]], now: datetime | None = None, source: str = "") -> Inputs:
    """The bot's misunderstood and reworded inputs and the questions operators answered without a suggestion
    (with source="operators", only the latter), grouped by normalised text per language; inputs that are
    ignored, or already one of the bot's formulations (`known`: normalised texts per language), are left out."""
    since = (now or timezone.now()) - timedelta(days=WINDOW_DAYS)
    talks = [] if source == "operators" else _talks(bot, since)
    answered = operators.unsuggested(bot, since, MAX_INPUTS)
    rows = talks + [(text, language, operators.ANSWERED, at, None) for text, language, at in answered]
    rows.sort(key=lambda row: row[3], reverse=True)  # newest first: an input is shown as last typed
    capped = MAX_INPUTS in (len(talks), len(answered))
    return _grouped(bot, rows, known, since, capped)


def _talks(bot, since: datetime) -> list[tuple]:
    return list(
        Interaction.objects.filter(
            bot=bot,
            counted=True,  # False in qualification mode: those are the editors' own tests
            human=False,
            created_at__gte=since,
            type_response__in=MISUNDERSTOOD + REWORDED,
        )
        .exclude(user_input="")
        .order_by("-created_at", "-id")
        .values_list("user_input", "language", "type_response", "created_at", "reworded_items")[:MAX_INPUTS]
    )


def _grouped(bot, rows: list[tuple], known: dict[str, set[str]], since: datetime, capped: bool) -> Inputs:
    ignored = ignored_texts(bot)
    found: dict[tuple[str, str], Input] = {}
    read = hidden = 0
    for text, language, type_response, created_at, reworded_items in rows:
        read += 1
        key = normalise(text, language)
        if not key:
            continue
        if key in ignored.get(language, ()) or key in known.get(language, ()):
            hidden += 1
            continue
        entry = found.get((language, key))
        if entry is None:
            entry = found[(language, key)] = Input(key=key, text=text.strip(), language=language, last_seen=created_at)
        if type_response == operators.ANSWERED:
            entry.by_operator += 1
        elif type_response in REWORDED:
            entry.reworded += 1
            if isinstance(reworded_items, list):
                entry.reworded_items.extend(i for i in reworded_items if isinstance(i, int))
        else:
            entry.misunderstood += 1
    by_language: dict[str, list[Input]] = {}
    for entry in found.values():
        by_language.setdefault(entry.language, []).append(entry)
    return Inputs(
        by_language=by_language,
        read=read,
        capped=capped,
        hidden=hidden,
        since=since,
        ignored={language: sorted(texts)[:MAX_IGNORED_TEXTS] for language, texts in ignored.items()},
    )


def ignored_texts(bot) -> dict[str, set[str]]:
    """Normalised texts of the bot's ignored groups, per language."""
    out: dict[str, set[str]] = {}
    groups = IgnoredGroup.objects.filter(bot=bot).values_list("language", "texts")[:MAX_IGNORED_GROUPS]
    for language, texts in groups:
        if isinstance(texts, list):
            out.setdefault(language, set()).update(t for t in texts if isinstance(t, str))
    return out


def known_texts(snapshot) -> dict[str, set[str]]:
    """The bot's formulations, normalised, per language (an input added as one has been dealt with)."""
    return snapshot.memo(
        ("learning", "known"),
        lambda: {
            language: {normalise(text, language) for _, _, text, _ in rows}
            for language, rows in snapshot.formulations.items()
        },
    )
