"""When the shared cache (Redis) refuses connections, what keeps state in it goes on in the process's
memory with the same rules: the login lockout still slows then locks guessing, one export at a time
still holds, and the shared cache is tried again a moment later. An error that is not an outage is not
hidden by the fallback."""

import pytest

from accounts import lockout
from bots.status import services
from knowledge.exchange import exports


class RefusingCache:
    """A shared cache whose server is gone: every call is refused, and counted."""

    def __init__(self, error: Exception | None = None):
        self.calls = 0
        self.error = error or ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    def __getattr__(self, operation):
        def refuse(*args, **kwargs):
            self.calls += 1
            raise self.error

        return refuse


@pytest.fixture
def shared_cache(monkeypatch):
    refusing = RefusingCache()
    monkeypatch.setattr(services, "cache", refusing)
    monkeypatch.setattr(exports, "cache", refusing)
    monkeypatch.setattr(services, "_cache_last_failure", 0.0)
    lockout.cache.local.clear()
    exports._fallback.local.clear()
    yield refusing
    lockout.cache.local.clear()
    exports._fallback.local.clear()


def test_guessing_is_still_slowed_then_locked_while_the_shared_cache_is_down(shared_cache):
    start = 1_000_000.0
    for attempt in range(lockout.PER_LOGIN.slow_after):
        lockout.check("203.0.113.9", "mallory", at=start + attempt * 100)
        lockout.record_failure("203.0.113.9", "mallory", at=start + attempt * 100)
    with pytest.raises(lockout.LoginRefused) as slowed:
        lockout.check("203.0.113.9", "mallory", at=start + 200.5)
    assert slowed.value.code == "LOGIN_SLOWED"
    for attempt in range(lockout.PER_LOGIN.slow_after, lockout.PER_LOGIN.lock_after):
        lockout.record_failure("203.0.113.9", "mallory", at=start + attempt * 100)
    with pytest.raises(lockout.LoginRefused) as locked:
        lockout.check("198.51.100.7", "mallory", at=start + 1_000)
    assert locked.value.code == "LOGIN_LOCKED"
    assert shared_cache.calls >= 1
    # Another login from another address is not affected.
    lockout.check("198.51.100.7", "alice", at=start + 1_000)


def test_after_a_refusal_the_shared_cache_is_skipped_for_a_moment_then_tried_again(shared_cache):
    lockout.record_failure("203.0.113.9", "mallory")
    assert shared_cache.calls == 1  # refused once; the rest of the call went to the process's memory
    lockout.check("203.0.113.9", "mallory")
    lockout.record_failure("203.0.113.9", "mallory")
    assert shared_cache.calls == 1
    # A moment later it is tried again (and, still refusing, skipped again).
    services._cache_last_failure -= services.CACHE_SKIP_SECONDS
    assert not services.shared_cache_skipped()
    lockout.record_success("mallory")
    assert shared_cache.calls == 2
    assert services.shared_cache_skipped()


def test_one_export_at_a_time_still_holds_while_the_shared_cache_is_down(shared_cache):
    first = exports.ExportSlot(user_id=7)
    assert first.acquire()
    assert not exports.ExportSlot(user_id=7).acquire()
    assert exports.ExportSlot(user_id=8).acquire()
    first.release()
    assert exports.ExportSlot(user_id=7).acquire()


def test_an_error_that_is_not_an_outage_is_not_hidden(shared_cache):
    shared_cache.error = TypeError("a wrong use of the cache")
    with pytest.raises(TypeError):
        lockout.record_failure("203.0.113.9", "mallory")
    with pytest.raises(TypeError):
        exports.ExportSlot(user_id=7).acquire()
    assert not services.shared_cache_skipped()
