"""French: day/month/year and a 24-hour clock (28/11/2026 06:24), everywhere, instead of Django's
"28 novembre 2026 06:24" beside "28/11/2026 06:24"."""

DATE_FORMAT = "d/m/Y"
DATETIME_FORMAT = "d/m/Y H:i"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y H:i"
TIME_FORMAT = "H:i"
