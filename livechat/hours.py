"""Live chat's opening hours: whether operators answer now (a competency's own hours, else the team's,
else always), when they open next, and the sentence that tells the visitor, in the dialog's language."""

from datetime import datetime, timedelta

from bots.time_zones import zone_named

from .models import OpeningHours, OpeningSlot

# The visitor's words (the dialog's language; English for the others), as the chat's other answers.
WORDS = {
    "fr": {
        "days": ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
        "hours": "Nos conseillers vous répondent {hours}.",
        "next": "Prochaine ouverture : {day} à {time}.",
        "one_day": "le {day} {times}",
        "days_range": "du {first} au {last} {times}",
        "opening": "de {opens} à {closes}",
        "and": " et ",
        "separator": ", ",
        "never": "Le service de conseillers est fermé pour le moment.",
    },
    "en": {
        "days": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
        "hours": "Our advisors answer {hours}.",
        "next": "Next opening: {day} at {time}.",
        "one_day": "on {day} {times}",
        "days_range": "{first} to {last} {times}",
        "opening": "{opens}–{closes}",
        "and": " and ",
        "separator": "; ",
        "never": "The advisors' service is closed for now.",
    },
}


def schedule_for(account_id: int, competency=None) -> OpeningHours | None:
    """The hours that apply: the competency's own, else the team's (no competency), else None (always open)."""
    schedules = OpeningHours.objects.filter(account_id=account_id).prefetch_related("slots")
    if competency is not None:
        own = schedules.filter(competency=competency).first()
        if own is not None:
            return own
    return schedules.filter(competency=None).first()


def open_now(account_id: int, competency=None, now=None, *, schedule=None) -> bool:
    schedule = schedule if schedule is not None else schedule_for(account_id, competency)
    if schedule is None:
        return True
    local = _local(schedule, now)
    moment = local.time()
    return any(s.weekday == local.weekday() and s.opens <= moment < s.closes for s in schedule.slots.all())


def next_opening(schedule: OpeningHours, now) -> datetime | None:
    """When it opens next (in the schedule's time zone), within a week; None when it never opens."""
    local = _local(schedule, now)
    slots = list(schedule.slots.all())
    for ahead in range(8):
        day = (local + timedelta(days=ahead)).date()
        starts = sorted(s.opens for s in slots if s.weekday == day.weekday())
        for opens in starts:
            moment = datetime.combine(day, opens, tzinfo=local.tzinfo)
            if moment > local:
                return moment
    return None


def describe(schedule: OpeningHours, language: str, now) -> str:
    """The hours as the visitor reads them, and when it opens next if it is closed now."""
    words = WORDS.get(language, WORDS["en"])
    slots = list(schedule.slots.all())
    if not slots:
        return words["never"]
    text = words["hours"].format(hours=words["separator"].join(_groups(slots, words, language)))
    if not open_now(schedule.account_id, now=now, schedule=schedule):
        opening = next_opening(schedule, now)
        if opening is not None:
            day = words["days"][opening.weekday()]
            text += " " + words["next"].format(day=day, time=_time(opening.time(), language))
    return text


def _local(schedule: OpeningHours, now) -> datetime:
    zone = zone_named(schedule.time_zone)
    return now.astimezone(zone) if zone is not None else now


def _groups(slots: list[OpeningSlot], words: dict, language: str) -> list[str]:
    """Consecutive days with the same openings are said once: "du lundi au vendredi de 9 h à 18 h"."""
    by_day = {day: tuple((s.opens, s.closes) for s in slots if s.weekday == day) for day in range(7)}
    groups: list[list[int]] = []
    for day in range(7):
        if not by_day[day]:
            continue
        if groups and groups[-1][-1] == day - 1 and by_day[groups[-1][0]] == by_day[day]:
            groups[-1].append(day)
        else:
            groups.append([day])
    said = []
    for group in groups:
        times = words["and"].join(
            words["opening"].format(opens=_time(opens, language), closes=_time(closes, language))
            for opens, closes in by_day[group[0]]
        )
        if len(group) == 1:
            said.append(words["one_day"].format(day=words["days"][group[0]], times=times))
        else:
            said.append(
                words["days_range"].format(first=words["days"][group[0]], last=words["days"][group[-1]], times=times)
            )
    return said


def _time(moment, language: str) -> str:
    if language == "fr":
        return f"{moment.hour} h" if moment.minute == 0 else f"{moment.hour} h {moment.minute:02d}"
    return f"{moment.hour}:{moment.minute:02d}"
