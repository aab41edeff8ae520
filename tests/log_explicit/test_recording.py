"""What the chat calls leave in the server error log: nothing when they succeed, one counted row per kind and
minute when they fail, never the visitor's text, and never more than a bounded number of rows."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.logs import recording
from bots.logs.coalescing import Coalescer
from bots.logs.models import ServerError
from bots.status import services

pytestmark = pytest.mark.django_db

LOG_TABLE = ServerError._meta.db_table


def log_statements(work) -> list[str]:
    """The statements `work` ran on the log table, as 'VERB'."""
    with CaptureQueriesContext(connection) as captured:
        work()
    return [
        query["sql"].split(None, 1)[0].upper()
        for query in captured.captured_queries
        if re.search(rf'\b"?{LOG_TABLE}"?\b', query["sql"])
    ]


def test_a_talk_that_succeeds_writes_no_log_row_and_costs_no_query_on_it(chatbox):
    chatbox.talk("Bonjour")  # opens the dialog
    with CaptureQueriesContext(connection) as captured:
        chatbox.talk("Comment faire un virement ?")
        chatbox.talk("xyzzy plugh")  # misunderstood: still a success
    assert captured.captured_queries, "the talks ran no query at all: the capture is broken"
    assert not [query for query in captured.captured_queries if LOG_TABLE in query["sql"]]
    assert ServerError.objects.count() == 0


def test_a_failing_chat_call_is_logged_without_the_visitors_text(chatbox, demo_bot):
    secret = "my card number is 4970 1012 3456 7890"
    response = chatbox.post(f"chat/talk/{demo_bot.uuid}", {"userInput": secret, "variables": "{not json"})
    assert response.status_code == 400

    row = ServerError.objects.get()
    assert row.bot == demo_bot
    assert (row.operation, row.status, row.code, row.count) == (
        "POST chat/talk/{bot_uuid}",
        400,
        "INVALID_FIELD",
        1,
    )
    assert row.message == response.json()["error"]
    assert "4970" not in row.message and "card" not in row.message
    assert row.minute == row.last_at.replace(second=0, microsecond=0)


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_repeats_of_an_error_are_stored_at_most_once_a_second(chatbox, demo_bot, monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(recording._coalescer, "clock", clock)
    url = f"chat/feedback/{demo_bot.uuid}"
    assert chatbox.post(url, {"feedBack": "positive"}).status_code == 400  # stored at once

    # Within the second, repeats are only counted in the process: no statement on the log table.
    for _ in range(5):
        assert log_statements(lambda: chatbox.post(url, {"feedBack": "positive"})) == []
    assert ServerError.objects.get().count == 1

    clock.now += 1.0  # a second later the next repeat stores itself and the five held back, in one UPDATE
    assert log_statements(lambda: chatbox.post(url, {"feedBack": "positive"})) == ["UPDATE"]
    assert ServerError.objects.get().count == 7


def test_reading_the_log_stores_what_this_process_holds_back(chatbox, demo_bot, log_reader, personas):
    url = f"chat/feedback/{demo_bot.uuid}"
    for _ in range(4):
        chatbox.post(url, {"feedBack": "positive"})
    page = log_reader.page(personas.alice, kind="server")
    assert [entry["count"] for entry in page["entries"]] == [4]


def test_made_up_bots_do_not_grow_what_a_process_remembers():
    coalescer = Coalescer(max_tracked=100, clock=FakeClock())
    at = timezone.now()
    for number in range(1000):
        coalescer.admit((f"bot-{number}", "kind"), at, "")
    assert len(coalescer._written) <= 100 + 1
    coalescer.admit(("bot-999", "kind"), at, "")  # a repeat within the second: held
    assert [(key, held.times) for key, held in coalescer.flush()] == [(("bot-999", "kind"), 1)]


def test_errors_are_told_apart_by_route_method_status_and_code(client, chatbox, demo_bot):
    chatbox.post(f"chat/feedback/{demo_bot.uuid}", {"feedBack": "positive"})  # 400 MISSING_FIELD
    client.get(f"/servlet/api/chat/feedback/{demo_bot.uuid}")  # the same over GET
    client.get(f"/api/chat/talk/{demo_bot.uuid}/%00")  # a NUL in the path: 400 INVALID_FIELD
    kinds = set(ServerError.objects.values_list("operation", "status", "code"))
    assert ("POST chat/feedback/{bot_uuid}", 400, "MISSING_FIELD") in kinds
    assert ("GET chat/feedback/{bot_uuid}", 400, "MISSING_FIELD") in kinds
    assert ("GET chat/talk/{bot_uuid}/{context_id}", 400, "INVALID_FIELD") in kinds
    assert len(kinds) == 3, kinds


def test_errors_of_unknown_bots_and_answers_of_a_database_outage_are_not_stored(client, chatbox, monkeypatch):
    made_up = "6f1c2b1e-0000-4000-8000-00000000dead"
    assert client.post(f"/servlet/api/chat/talk/{made_up}", {"userInput": "hi"}).status_code == 404
    # While the database is known to be down every call answers 503 at once; the log does not try to write.
    monkeypatch.setattr(services, "database_down", lambda: True)
    down = chatbox.post(f"chat/feedback/{chatbox.bot}", {"feedBack": "positive"})
    assert (down.status_code, down.json()["code"]) == (503, "DATABASE_UNAVAILABLE")
    monkeypatch.undo()
    assert ServerError.objects.count() == 0


def failing_calls(bot_uuid: str) -> list[tuple[str, str]]:
    """(method, path) of chat calls that each fail with a 400 (a NUL in a field): more kinds of error than
    one minute may hold."""
    routes = [
        "talk",
        "welcomecall",
        "availablecontext",
        "history",
        "topknowledge",
        "search",
        "feedback",
        "feedback/comment",
        "feedback/insatisfaction",
        "context",
        "dialog/previous",
        "error",
        "variable",
        "gdpr",
        "poll/last",
        "typing",
        "reading",
        "status",
    ]
    return [(method, f"/servlet/api/chat/{route}/{bot_uuid}") for route in routes for method in ("GET", "POST")]


def test_a_flood_of_errors_keeps_the_table_bounded(client, demo_bot):
    calls = failing_calls(str(demo_bot.uuid))
    fields = {"contextId": "\x00", "clientId": "\x00", "userInput": "\x00", "error": "\x00", "search": "\x00"}
    failed = 0
    for _ in range(5):  # the same flood five times over
        for method, path in calls:
            response = client.get(path, fields) if method == "GET" else client.post(path, fields)
            assert response.status_code >= 400, (method, path, response.status_code)
            failed += 1

    kinds = len(calls)
    assert kinds > recording.MAX_KINDS_PER_MINUTE
    per_minute = {}
    for row in ServerError.objects.all():
        per_minute[row.minute] = per_minute.get(row.minute, 0) + 1
    # At most the cap plus the overflow row in each minute (the flood may straddle a minute's end).
    assert max(per_minute.values()) <= recording.MAX_KINDS_PER_MINUTE + 1
    assert ServerError.objects.count() <= 2 * (recording.MAX_KINDS_PER_MINUTE + 1)
    # Nothing is lost: every failed call is counted once (once the process has stored what it held back).
    recording.store_held_errors()
    assert sum(ServerError.objects.values_list("count", flat=True)) == failed
    assert ServerError.objects.filter(code="MORE_KINDS", status=0, operation="*").exists()


def test_rows_past_the_retention_are_purged_by_the_next_new_row(chatbox, demo_bot, monkeypatch, settings):
    settings.SERVER_ERROR_RETENTION_DAYS = 30
    now = timezone.now()
    old_minute = (now - timedelta(days=31)).replace(second=0, microsecond=0)
    kept_minute = (now - timedelta(days=29)).replace(second=0, microsecond=0)
    for minute in (old_minute, kept_minute):
        ServerError.objects.create(
            bot=demo_bot, minute=minute, last_at=minute, operation="POST chat/talk/{bot_uuid}", status=400, code="X"
        )
    monkeypatch.setattr(recording, "_last_purge", None)  # as in a process that has not purged yet

    assert chatbox.post(f"chat/feedback/{demo_bot.uuid}", {"feedBack": "positive"}).status_code == 400

    minutes = set(ServerError.objects.values_list("minute", flat=True))
    assert old_minute not in minutes and kept_minute in minutes
    assert len(minutes) == 2
    # Within the hour, the same process does not purge again.
    ServerError.objects.create(
        bot=demo_bot, minute=old_minute, last_at=old_minute, operation="POST chat/talk/{bot_uuid}", status=400, code="X"
    )
    chatbox.post(f"chat/history/{demo_bot.uuid}", {})
    assert ServerError.objects.filter(minute=old_minute).exists()
    assert recording.purge_old_server_errors() == 1
