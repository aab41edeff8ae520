"""The database watch tells a database that is down from one that is only busy: a connection failure
marks it down (requests answered 503 at once, a thread probes until it answers again), but a pool
timeout does so only if a fresh connection fails too; errors that are not about reaching the
database never mark it down."""

import threading

import psycopg
import psycopg_pool
import pytest
from django.db import OperationalError

from bots.status import services

pytestmark = pytest.mark.django_db


def wrapped(cause: Exception) -> OperationalError:
    """As Django raises it: its OperationalError caused by the driver's error."""
    try:
        raise OperationalError(str(cause)) from cause
    except OperationalError as error:
        return error


@pytest.fixture
def watch(monkeypatch):
    monkeypatch.setattr(services, "PROBE_SECONDS", 0.01)
    watch = services.DatabaseWatch()
    yield watch
    if watch._thread is not None:
        watch._thread.join(timeout=10)


def test_a_pool_timeout_while_a_fresh_connection_answers_is_a_busy_server_not_an_outage(watch):
    assert not watch.failed(wrapped(psycopg_pool.PoolTimeout("couldn't get a connection after 10.00 sec")))
    assert watch.down() is None
    assert watch.changes == 0


def test_a_pool_timeout_when_no_connection_can_be_made_marks_the_database_down_until_it_answers(watch, monkeypatch):
    probes, allowed = [], threading.Event()

    def probe():
        probes.append(1)
        if not allowed.is_set():
            raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(watch, "_probe", probe)
    assert watch.failed(wrapped(psycopg_pool.PoolTimeout("couldn't get a connection after 10.00 sec")))
    assert watch.down() == services.DATABASE_DOWN
    assert watch.details()["error"]  # the latest reason, for the status
    allowed.set()
    watch._thread.join(timeout=10)
    assert watch.down() is None
    assert watch.changes == 2  # down, then up again
    assert len(probes) >= 2


def test_a_connection_refused_marks_it_down_at_once(watch, monkeypatch):
    monkeypatch.setattr(watch, "_probe", lambda: None)
    assert watch.failed(wrapped(psycopg.OperationalError("connection refused")))
    watch._thread.join(timeout=10)
    assert watch.changes == 2


def test_errors_that_are_not_about_reaching_the_database_do_not(watch):
    deadlock = psycopg.errors.DeadlockDetected("deadlock detected")
    assert not watch.failed(wrapped(deadlock))
    assert not watch.failed(ValueError("not a database error"))
    assert watch.down() is None and watch.changes == 0


def test_while_the_database_is_known_down_a_pooled_connection_fails_at_once_instead_of_waiting(monkeypatch):
    """A request that passed the outage check just before the outage was found must not wait the pool's
    timeout for a connection the pool cannot make (config/postgres)."""
    from django.db import connections

    wrapper = connections.create_connection("default")
    if not wrapper.settings_dict["OPTIONS"].get("pool"):
        pytest.skip("PostgreSQL with the connection pool only")
    monkeypatch.setattr(services, "database_down", lambda: services.DATABASE_DOWN)
    with pytest.raises(OperationalError, match="the database is unavailable"):
        wrapper.ensure_connection()  # as every query does
    assert wrapper.connection is None
    monkeypatch.undo()
    wrapper.ensure_connection()  # once it is up again, connections come from the pool as before
    wrapper.close()
