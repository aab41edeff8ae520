"""Repeated failed logins are slowed, then refused with 429 for a while, per address and per login.

Counters live in the Django cache, so every worker process shares them when the cache is Redis.
"Slowed" means each new attempt must wait a growing delay after the last failure (1 s, 2 s, 4 s… up
to 30 s) and is refused with 429 and Retry-After if it comes sooner: the client waits, no worker
thread sleeps. Past the lock threshold every password attempt is refused for LOCK_SECONDS, even a
right one (otherwise guessing would go on at full speed). Every password check goes through here, by
way of the only authentication backend (accounts/backends.py): the back office's login form and its
old-password check, the Authentication servlet, HTTP Basic and the token page share these counters.
Tokens and open back-office sessions are never locked out: no password is checked for them.

If the shared cache is unreachable (Redis down), logins keep working and stay guarded: the counters
fall back to this process's memory (bots/status/services.py FallbackCache, logged), so the same limits
hold per process until the shared cache answers again. Failing open would let guessing run at full
speed during an outage; failing closed would lock everyone out of the API.
"""

import hashlib
import logging
import math
import time
from dataclasses import dataclass

from bots.servlet.errors import TooManyRequests
from bots.status.services import FallbackCache

log = logging.getLogger("accounts.lockout")

WINDOW_SECONDS = 15 * 60
LOCK_SECONDS = 15 * 60
MAX_DELAY_SECONDS = 30

# The shared cache, or this process's memory while it is unreachable.
cache = FallbackCache("the login lockout")


@dataclass(frozen=True)
class Limit:
    kind: str
    slow_after: int
    lock_after: int


# A person mistyping a password reaches neither lock; one address trying many logins hits the second.
PER_LOGIN = Limit("login", slow_after=3, lock_after=10)
PER_ADDRESS = Limit("address", slow_after=10, lock_after=30)


class LoginRefused(TooManyRequests):
    """A 429 in the servlet error shape, with Retry-After so that clients know how long to wait."""

    def __init__(self, message: str, *, code: str, retry_after: int):
        super().__init__(message, code=code, retryAfter=retry_after)
        self.retry_after = retry_after

    def response(self):
        response = super().response()
        response["Retry-After"] = str(self.retry_after)
        return response


def now() -> float:
    return time.time()


def _key(limit: Limit, what: str, ident: str) -> str:
    digest = hashlib.sha256(ident.strip().lower().encode("utf-8")).hexdigest()[:32]
    return f"login-{what}:{limit.kind}:{digest}"


def _delay(limit: Limit, failures: int) -> int:
    if failures < limit.slow_after:
        return 0
    return min(2 ** (failures - limit.slow_after), MAX_DELAY_SECONDS)


def check(address: str, login: str, at: float | None = None) -> None:
    """Refuse the attempt (429) if the address or the login is locked or must still wait."""
    at = now() if at is None else at
    for limit, ident in ((PER_LOGIN, login), (PER_ADDRESS, address)):
        if not ident:
            continue
        state = cache.get_many(
            [_key(limit, "failures", ident), _key(limit, "last", ident), _key(limit, "locked", ident)]
        )
        locked_until = state.get(_key(limit, "locked", ident))
        if locked_until and locked_until > at:
            raise LoginRefused(
                f"Too many failed logins for this {limit.kind}; try again later.",
                code="LOGIN_LOCKED",
                retry_after=math.ceil(locked_until - at),
            )
        failures = state.get(_key(limit, "failures", ident)) or 0
        last = state.get(_key(limit, "last", ident)) or 0
        wait = last + _delay(limit, failures) - at
        if wait > 0:
            raise LoginRefused(
                f"Several failed logins for this {limit.kind}: wait {math.ceil(wait)} s before trying again.",
                code="LOGIN_SLOWED",
                retry_after=math.ceil(wait),
            )


def record_failure(address: str, login: str, at: float | None = None) -> None:
    at = now() if at is None else at
    for limit, ident in ((PER_LOGIN, login), (PER_ADDRESS, address)):
        if not ident:
            continue
        failures_key = _key(limit, "failures", ident)
        cache.add(failures_key, 0, WINDOW_SECONDS)
        try:
            failures = cache.incr(failures_key)
        except ValueError:  # expired between add and incr
            cache.set(failures_key, 1, WINDOW_SECONDS)
            failures = 1
        cache.set(_key(limit, "last", ident), at, WINDOW_SECONDS)
        if failures >= limit.lock_after:
            cache.set(_key(limit, "locked", ident), at + LOCK_SECONDS, LOCK_SECONDS)
            cache.delete(failures_key)
            log.warning(
                "Login locked for %s s after %s failures for %s %r (from address %s)",
                LOCK_SECONDS,
                failures,
                limit.kind,
                ident,
                address,
            )
        else:
            log.info(
                "Failed login %s/%s for %s %r (address %s)", failures, limit.lock_after, limit.kind, ident, address
            )


def record_success(login: str) -> None:
    """A right password clears that login's failures (not the address's: one valid account must not
    let an address go on guessing other logins)."""
    cache.delete_many([_key(PER_LOGIN, what, login) for what in ("failures", "last")])


def client_address(request) -> str:
    """The peer address. X-Forwarded-For is not trusted: anyone can write it."""
    request = getattr(request, "_request", request)
    return request.META.get("REMOTE_ADDR", "") or ""
