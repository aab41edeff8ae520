"""How many transcripts #dydumailto# may e-mail: per dialog, per client address, per recipient and per bot
and day (the bot preference `dialogs.mail.daily`), so that the chatbox is no anonymous mail relay.

Each allowance is a counter in the shared cache (FallbackCache: while Redis is down, the same limits hold
in each process) of the mails let through: a refused attempt gives back what it counted, so that a cap an
administrator raises lets mails through at once. Counting then giving back (never reading then counting)
keeps each limit exact between workers: two attempts for the last place cannot both have it."""

import contextlib
import hashlib
import ipaddress
from datetime import datetime

from django.utils import timezone

from bots.status.services import FallbackCache
from bots.time_zones import zone_of
from preferences.registry import known_key
from preferences.services import bot_value

WINDOW_SECONDS = 3600
# A visitor sends their conversation once, maybe again to a corrected address: 3 an hour is no mail bomb.
MAILS_PER_DIALOG = 3
# One connection: a visitor's dialog or two and a typo; 30 new dialogs from one address send 5 mails.
MAILS_PER_CLIENT_ADDRESS = 5
# One mailbox: a person asks for their own conversation a few times; many addresses cannot flood someone else's.
MAILS_PER_RECIPIENT = 3
DAILY_PREFERENCE = "dialogs.mail.daily"
# A day's counter outlives the day in any time zone (it is named by its date, so it never runs over).
DAY_SECONDS = 2 * 24 * 3600

# Why a mail is refused: the word of the chatbox's answer (dialogs/mailto.py WORDS) and of the log line.
OFF, DIALOG, CLIENT, RECIPIENT, BOT = "off", "dialog_limit", "client_limit", "recipient_limit", "bot_limit"

cache = FallbackCache("the transcript mail limits")


def daily_cap(bot) -> int:
    """The bot's daily cap; a stored value that is no number (stored before the key was checked) is the default."""
    default = int(known_key(DAILY_PREFERENCE).default)
    value = (bot_value(bot, DAILY_PREFERENCE) or "").strip()
    return int(value) if value.isdigit() else default


def recipient_key(email: str) -> str:
    """One counter per mailbox: case and spaces aside, and without a +tag (most providers deliver
    name+anything@ to name@, so tags would give one mailbox endless allowances)."""
    local, _, domain = "".join(email.split()).lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain.rstrip('.')}"


def client_key(address: str) -> str:
    """One counter per client: an IPv6 client usually holds a whole /64, so its /64 counts as one address."""
    try:
        parsed = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip()  # no address (the back office's test box) or a unix socket: one shared counter
    if parsed.version == 6 and parsed.ipv4_mapped:
        return str(parsed.ipv4_mapped)
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def digest(value: str) -> str:
    """Counters and log lines name an address by a digest of it, not in clear."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:16]


def day_key(bot, now: datetime | None = None) -> str:
    """The bot's counter of today, today in the bot's time zone (what its administrator calls a day)."""
    today = timezone.localtime(now or timezone.now(), zone_of(bot)).date()
    return f"dialogs:mailto:bot:{bot.uuid}:{today.isoformat()}"


def refusal(bot, dialog, client_address: str, email: str, cap: int) -> str | None:
    """Counts this mail against each allowance in turn (`cap`: the bot's daily cap, read by the caller);
    the reason of the first one it exceeds, else None."""
    if cap <= 0:
        return OFF
    counters = (
        (DIALOG, f"dialogs:mailto:{dialog.uuid}", WINDOW_SECONDS, MAILS_PER_DIALOG),
        (
            CLIENT,
            f"dialogs:mailto:client:{digest(client_key(client_address))}",
            WINDOW_SECONDS,
            MAILS_PER_CLIENT_ADDRESS,
        ),
        (RECIPIENT, f"dialogs:mailto:to:{digest(recipient_key(email))}", WINDOW_SECONDS, MAILS_PER_RECIPIENT),
        # The bot's last: a visitor over their own allowance is told so, not that the bot's day is over.
        (BOT, day_key(bot), DAY_SECONDS, cap),
    )
    counted = []
    for reason, key, window, limit in counters:
        counted.append(key)
        if cache.hit(key, window) > limit:
            _give_back(counted)
            return reason
    return None


def _give_back(keys: list[str]) -> None:
    for key in keys:
        with contextlib.suppress(ValueError):  # expired meanwhile: nothing left to give back
            cache.decr(key)
