"""Typed values found in what a visitor wrote: integer, decimal, date, e-mail, phone, free text or one
of a list. Each finder returns the value as it is stored (a canonical form) and the span it used."""

import re
import unicodedata
from datetime import date, timedelta

from knowledge.models import KnowledgeItem

T = KnowledgeItem.SlotType

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-zA-Z]{2,}(?![\w-])")
# 8 to 15 digits, in groups separated by a space, a dot or a hyphen, optionally after + or 00.
PHONE = re.compile(r"(?<![\w+])(?:\+|00)?\d(?:[ .\-]?\d){7,14}(?![\d])")
ISO_DATE = re.compile(r"(?<![\d/.\-])(\d{4})-(\d{1,2})-(\d{1,2})(?![/.\-]?\d)")
NUMERIC_DATE = re.compile(r"(?<![\d/.\-])(\d{1,2})[/.\-](\d{1,2})(?:[/.\-](\d{4}|\d{2}))?(?![/.\-]?\d)")
DECIMAL = re.compile(r"(?<![\d.,])-?\d+(?:[.,]\d+)?(?![\d]|[.,]\d)")
INTEGER = re.compile(r"(?<![\d.,])-?\d+(?![\d]|[.,]\d)")

MONTHS = {
    "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "aout": 8,
    "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "janv": 1, "fevr": 2, "avr": 4, "juil": 7, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
}  # fmt: skip
WEEKDAYS = {
    "lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5, "dimanche": 6,
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}  # fmt: skip
RELATIVE_DAYS = {"aujourd'hui": 0, "today": 0, "apres-demain": 2, "apres demain": 2, "demain": 1, "tomorrow": 1}
NUMBER_WORDS = {
    "zero": 0, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7,
    "huit": 8, "neuf": 9, "dix": 10, "onze": 11, "douze": 12,
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:er|st|nd|rd|th)?\s+({_MONTH})\.?(?:\s+(\d{{4}}))?\b")
MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b")
WEEKDAY = re.compile(rf"\b({'|'.join(WEEKDAYS)})\b")
RELATIVE = re.compile(rf"(?<![\w-])({'|'.join(sorted(RELATIVE_DAYS, key=len, reverse=True))})(?![\w-])")
NUMBER_WORD = re.compile(rf"\b({'|'.join(NUMBER_WORDS)})\b")


def fold(text: str) -> str:
    """Lower case without accents, one character for one (spans found in it are spans of the text)."""
    out = []
    for char in text:
        lower = char.lower()
        if len(lower) != 1:
            lower = char
        plain = "".join(c for c in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(c))
        out.append(plain if len(plain) == 1 else lower)
    return "".join(out).replace("’", "'")


def find(
    slot_type: str, text: str, today: date, allowed: list[str] | None = None
) -> tuple[str, tuple[int, int]] | None:
    """The first value of that type in the text and its span, or None."""
    finder = FINDERS.get(slot_type)
    return finder(text, today, allowed or []) if finder else None


def _email(text, today, allowed):
    match = EMAIL.search(text)
    return (match.group(0).lower(), match.span()) if match else None


def _phone(text, today, allowed):
    for match in PHONE.finditer(text):
        found = match.group(0)
        if ISO_DATE.fullmatch(found) or NUMERIC_DATE.fullmatch(found):
            continue  # 2027-03-12 is a date, not a phone number
        digits = re.sub(r"\D", "", found)
        if found.startswith(("+", "00")):
            digits = "+" + digits.removeprefix("00") if found.startswith("00") else "+" + digits
        return digits, match.span()
    return None


def _date(text, today, allowed):
    folded = fold(text)
    found = []  # (start, end, date)
    for match in ISO_DATE.finditer(folded):
        found.append((*match.span(), _make(int(match[1]), int(match[2]), int(match[3]))))
    for match in NUMERIC_DATE.finditer(folded):
        year = _year(match[3])
        found.append((*match.span(), _dated(today, int(match[1]), int(match[2]), year)))
    for match in DAY_MONTH.finditer(folded):
        found.append((*match.span(), _dated(today, int(match[1]), MONTHS[match[2]], _year(match[3]))))
    for match in MONTH_DAY.finditer(folded):
        found.append((*match.span(), _dated(today, int(match[2]), MONTHS[match[1]], _year(match[3]))))
    for match in RELATIVE.finditer(folded):
        found.append((*match.span(), today + timedelta(days=RELATIVE_DAYS[match[1]])))
    for match in WEEKDAY.finditer(folded):
        # The coming one: « mardi » said on a Tuesday means next week's.
        ahead = (WEEKDAYS[match[1]] - today.weekday() - 1) % 7 + 1
        found.append((*match.span(), today + timedelta(days=ahead)))
    found = [entry for entry in found if entry[2] is not None]
    if not found:
        return None
    start, end, value = min(found, key=lambda entry: (entry[0], -entry[1]))
    return value.isoformat(), (start, end)


def _year(text: str | None) -> int | None:
    if not text:
        return None
    year = int(text)
    return year + 2000 if year < 100 else year


def _make(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _dated(today: date, day: int, month: int, year: int | None) -> date | None:
    """A day and month without a year is the next such date from today."""
    if year is not None:
        return _make(year, month, day)
    found = _make(today.year, month, day)
    if found is not None and found < today:
        found = _make(today.year + 1, month, day)
    return found


def _decimal(text, today, allowed):
    match = DECIMAL.search(text)
    if match:
        return match.group(0).replace(",", "."), match.span()
    return _number_word(text)


def _integer(text, today, allowed):
    match = INTEGER.search(text)
    if match:
        return str(int(match.group(0))), match.span()
    return _number_word(text)


def _number_word(text):
    match = NUMBER_WORD.search(fold(text))
    return (str(NUMBER_WORDS[match[1]]), match.span()) if match else None


def _one_of(text, today, allowed):
    """The allowed value written in the text (any case, accents or not), the longest first."""
    folded = fold(text)
    for value in sorted(allowed, key=len, reverse=True):
        words = [re.escape(word) for word in fold(value).split()]
        if not words:
            continue
        match = re.search(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", folded)
        if match:
            return value, match.span()
    return None


def _text(text, today, allowed):
    stripped = text.strip()
    return (stripped, (0, len(text))) if stripped else None


FINDERS = {
    T.EMAIL: _email,
    T.PHONE: _phone,
    T.DATE: _date,
    T.DECIMAL: _decimal,
    T.INTEGER: _integer,
    T.LIST: _one_of,
    T.TEXT: _text,
}
# When one sentence holds several values, the most recognisable kinds are taken out first (a phone
# number's digits are not a date's or an integer's).
ORDER = [T.EMAIL, T.PHONE, T.DATE, T.LIST, T.DECIMAL, T.INTEGER, T.TEXT]
