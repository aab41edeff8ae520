"""servlet.requests.chatHttp: real chat calls counted as successes, errors (by bot) and ignored, the
EWMA rates of the metrics libraries, and no database query added to the chat path."""

import math
import uuid

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from bots import metrics
from bots.servlet.metrics_middleware import ChatMetricsMiddleware

pytestmark = pytest.mark.django_db

STATUS = "/servlet/api/serverstatus?details=true"
UNKNOWN_BOT = "0badb0a7-0000-4000-8000-00000000dead"


def chat_http(client, persona) -> dict:
    body = client.get(STATUS, **persona.auth).json()
    return body["applications"]["servlet"]["requests"]["chatHttp"]


def test_the_meters_count_real_chat_calls(client, chatbox, personas, meters, demo_bot):
    # 3 successes: two talks and a history call, through both prefixes.
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    chatbox.talk("J'ai perdu ma carte")
    assert client.post(f"/api/chat/history/{demo_bot.uuid}", {"contextUuid": chatbox.context_id}).status_code == 200
    # 3 errors: an unknown bot (404), a missing field (400) and a bad boolean (400) on the demo bot.
    assert client.post(f"/servlet/api/chat/talk/{UNKNOWN_BOT}", {"userInput": "hello"}).status_code == 404
    assert client.post(f"/servlet/api/chat/history/{demo_bot.uuid}", {}).status_code == 400
    bad = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", {"userInput": "x", "qualificationMode": "maybe"})
    assert bad.status_code == 400
    # 2 ignored: a CORS preflight and a HEAD probe.
    preflight = client.options(
        f"/servlet/api/chat/talk/{demo_bot.uuid}",
        HTTP_ORIGIN="https://shop.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
    )
    assert preflight.status_code == 200
    client.head(f"/servlet/api/chat/pushrules/{demo_bot.uuid}")
    # Calls outside the chat group are not chat calls.
    client.get("/servlet/api/serverstatus")
    client.get(f"/servlet/api/preferences/bot/{demo_bot.uuid}", **personas.alice.auth)

    chat = chat_http(client, personas.alice)
    assert (chat["successes"]["count"], chat["errors"]["count"], chat["ignored"]["count"]) == (3, 3, 2)
    assert chat["errorsByBot"] == {str(demo_bot.uuid): 2, UNKNOWN_BOT: 1}
    assert chat["successes"]["meanRate"] > 0


def test_recording_a_chat_call_costs_no_database_query(django_assert_num_queries, meters):
    # A successful call; an error answer is also stored for the Log Explicit group (tests/log_explicit).
    middleware = ChatMetricsMiddleware(lambda request: HttpResponse(status=200))
    request = RequestFactory().post(f"/servlet/api/chat/talk/{uuid.uuid4()}")
    with django_assert_num_queries(0):
        middleware(request)
    assert meters.report()["successes"]["count"] == 1


def test_the_talk_hot_path_makes_the_same_queries_with_the_meters(chatbox, meters):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    chatbox.talk("bonjour")  # warm the matcher and the dialog
    chatbox.talk("Quels sont vos horaires d'ouverture ?")  # its answer is read once per knowledge version
    with CaptureQueriesContext(connection) as counted:
        chatbox.talk("Quels sont vos horaires d'ouverture ?")
    previous = metrics.use_meters(None)  # a broken meters store: recording fails, the call does not
    try:
        with mock_failing_meters(), CaptureQueriesContext(connection) as without:
            chatbox.talk("Quels sont vos horaires d'ouverture ?")
    finally:
        metrics.use_meters(previous)
    assert len(counted.captured_queries) == len(without.captured_queries)


class mock_failing_meters:
    def __enter__(self):
        class Broken:
            def mark(self, *args, **kwargs):
                raise ConnectionError("metrics store down")

        self.previous = metrics.use_meters(Broken())
        return self

    def __exit__(self, *exc):
        metrics.use_meters(self.previous)


class TestRates:
    """The same arithmetic as Dropwizard Metrics' Meter: 5-second ticks, EWMA seeded by the first tick."""

    T0 = 1_700_000_000.0  # a tick boundary (divisible by 5)

    def meters_at(self, started):
        return metrics.ChatHttpMeters(metrics.LocalStore(now=started))

    def test_rates_move_on_whole_ticks_only(self):
        meters = self.meters_at(self.T0)
        for _ in range(10):
            meters.mark("successes", now=self.T0 + 1)
        running = meters.report(now=self.T0 + 4)["successes"]
        assert running["count"] == 10
        assert running["oneMinuteRate"] == 0.0
        assert running["meanRate"] == pytest.approx(10 / 4)
        after_tick = meters.report(now=self.T0 + 5)["successes"]
        # The first tick seeds every rate with its instant rate: 10 events / 5 s.
        assert after_tick["oneMinuteRate"] == after_tick["fiveMinuteRate"] == after_tick["fifteenMinuteRate"] == 2.0

    def test_quiet_ticks_decay_each_rate_with_its_own_window(self):
        meters = self.meters_at(self.T0)
        for _ in range(10):
            meters.mark("successes", now=self.T0)
        quiet_ticks = 12  # one minute
        rates = meters.report(now=self.T0 + 5 * (1 + quiet_ticks))["successes"]
        for name, minutes in (("oneMinuteRate", 1), ("fiveMinuteRate", 5), ("fifteenMinuteRate", 15)):
            assert rates[name] == pytest.approx(2.0 * math.exp(-5 / 60 / minutes) ** quiet_ticks), name
        assert rates["oneMinuteRate"] == pytest.approx(2.0 / math.e)

    def test_a_steady_rate_is_reported_as_such(self):
        meters = self.meters_at(self.T0)
        for tick in range(12 * 20):  # 20 minutes at 3 events per 5 s
            for _ in range(3):
                meters.mark("successes", now=self.T0 + 5 * tick + 2)
        rates = meters.report(now=self.T0 + 5 * 12 * 20)["successes"]
        for name in ("oneMinuteRate", "fiveMinuteRate", "fifteenMinuteRate"):
            assert rates[name] == pytest.approx(0.6), name
        assert rates["meanRate"] == pytest.approx(0.6)

    def test_five_minute_errors_ratio(self):
        meters = self.meters_at(self.T0)
        for meter, times in (("successes", 1), ("errors", 3), ("ignored", 7)):
            for _ in range(times):
                meters.mark(meter, bot="b" if meter == "errors" else None, now=self.T0)
        report = meters.report(now=self.T0 + 5)
        assert report["fiveMinuteErrorsRatio"] == pytest.approx(0.75)
        assert report["errorsByBot"] == {"b": 3}
        quiet = metrics.ChatHttpMeters(metrics.LocalStore(now=self.T0)).report(now=self.T0 + 5)
        assert quiet["fiveMinuteErrorsRatio"] == 0.0

    def test_errors_by_bot_cannot_grow_without_end(self, monkeypatch):
        monkeypatch.setattr(metrics, "MAX_BOTS", 2)
        meters = self.meters_at(self.T0)
        for bot in ("a", "b", "c", "a", "d"):
            meters.mark("errors", bot=bot, now=self.T0)
        assert meters.report(now=self.T0 + 5)["errorsByBot"] == {"a": 2, "other": 2, "b": 1}
