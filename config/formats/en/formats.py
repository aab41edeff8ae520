"""English: ISO dates and a 24-hour clock (2026-11-28 06:24), everywhere, instead of Django's
"Nov. 28, 2026, 6:24 a.m." beside our own "2026-11-28 06:24"."""

DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
TIME_FORMAT = "H:i"
