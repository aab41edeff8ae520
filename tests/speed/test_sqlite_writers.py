"""SQLite's writers take turns across processes (config/sqlite_pool): a write transaction takes the lock file
beside the database before BEGIN, so gunicorn's workers queue on it instead of sleeping in SQLite's busy
handler; a writer that cannot get it within the busy timeout gets SQLite's own "database is locked", and
the file is free again once the transaction ends, committed or rolled back."""

import fcntl
import os
from contextlib import contextmanager

import pytest
from django.db import OperationalError, transaction
from django.db.utils import ConnectionHandler

pytestmark = pytest.mark.django_db  # lets the test open its own database (pytest-django's blocker)


@pytest.fixture
def database(tmp_path, monkeypatch):
    """A file database of the test's own on the platform's SQLite backend, its busy timeout 0.2 s, used by
    transaction.atomic()."""
    name = str(tmp_path / "writers.sqlite3")
    handler = ConnectionHandler(
        {"default": {"ENGINE": "config.sqlite_pool", "NAME": name, "OPTIONS": {"timeout": 0.2}}}
    )
    connection = handler["default"]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE said (text TEXT)")
    monkeypatch.setattr(transaction, "get_connection", lambda using=None: connection)
    yield name, connection
    connection.close()


@contextmanager
def another_process_writing(name: str):
    """The lock file held as another process's writer holds it (flock locks belong to one open file)."""
    held = os.open(f"{name}-writer", os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)


def said(connection) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT text FROM said ORDER BY rowid")
        return [row[0] for row in cursor.fetchall()]


def write(connection, text: str) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO said VALUES (%s)", [text])


def free(name: str) -> bool:
    probe = os.open(f"{name}-writer", os.O_RDWR)
    try:
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(probe)


def test_a_writer_waits_for_another_process_and_gives_up_after_the_busy_timeout(database):
    name, connection = database
    write(connection, "first")
    with another_process_writing(name), pytest.raises(OperationalError, match="database is locked"):
        write(connection, "while another process writes")
    write(connection, "after")
    assert said(connection) == ["first", "after"]


def test_the_lock_is_held_during_the_transaction_and_freed_by_commit_and_rollback(database):
    name, connection = database
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO said VALUES ('kept')")
        assert not free(name)
    assert free(name)
    with pytest.raises(RuntimeError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO said VALUES ('rolled back')")
        assert not free(name)
        raise RuntimeError("the transaction fails")
    assert free(name)
    assert said(connection) == ["kept"]
