"""The chat meters are shared by every worker process through Redis: two processes record chat calls
through the real middleware, a third reads the sum."""

import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from bots import metrics

ROOT = Path(__file__).resolve().parents[2]

WORKER = textwrap.dedent(
    """
    import sys
    import django
    django.setup()
    from django.conf import settings
    from django.http import HttpResponse
    from django.test import RequestFactory
    from bots import metrics
    from bots.servlet.metrics_middleware import ChatMetricsMiddleware

    namespace, plan = sys.argv[1], sys.argv[2]
    metrics.use_meters(metrics.ChatHttpMeters(metrics.RedisStore(settings.REDIS_URL, namespace)))
    factory = RequestFactory()
    for step in plan.split(","):
        method, status, bot = step.split(":")
        middleware = ChatMetricsMiddleware(lambda request, status=int(status): HttpResponse(status=status))
        request = factory.generic(method, f"/servlet/api/chat/talk/{bot}")
        middleware(request)
    print("done", plan.count(",") + 1)
    """
)

BOT_A = "aaaaaaaa-0000-4000-8000-00000000000a"
BOT_B = "bbbbbbbb-0000-4000-8000-00000000000b"


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: without Redis the meters are per process")
def test_two_processes_count_into_the_same_meters():
    namespace = f"test-two-processes-{uuid.uuid4().hex}"
    first = ",".join([f"POST:200:{BOT_A}"] * 5 + [f"POST:500:{BOT_A}"] * 2 + [f"OPTIONS:200:{BOT_A}"])
    second = ",".join([f"POST:200:{BOT_B}"] * 4 + [f"POST:404:{BOT_B}"] + [f"HEAD:200:{BOT_B}"] * 2)
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, namespace, plan],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for plan in (first, second)
    ]
    outputs = [worker.communicate(timeout=60) for worker in workers]
    for worker, (_, err) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, err
    assert sorted(out.strip() for out, _ in outputs) == ["done 7", "done 8"]

    store = metrics.RedisStore(settings.REDIS_URL, namespace)
    try:
        report = metrics.ChatHttpMeters(store).report()
        assert report["successes"]["count"] == 9
        assert report["errors"]["count"] == 3
        assert report["ignored"]["count"] == 3
        assert report["errorsByBot"] == {BOT_A: 2, BOT_B: 1}
    finally:
        store.reset()


@pytest.fixture
def private_redis(tmp_path):
    from tests.servers import PrivateRedis

    redis_server = PrivateRedis(tmp_path).start()
    yield redis_server
    redis_server.stop()


def wait_for(condition, timeout: float = 10):
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_process_sends_its_calls_within_a_second_in_one_round_trip(private_redis):
    import redis

    store = metrics.RedisStore(private_redis.url, "test-flush")
    meters = metrics.ChatHttpMeters(store)
    client = redis.Redis.from_url(private_redis.url)
    client.config_resetstat()
    for _ in range(300):
        meters.mark("successes")
    meters.mark("errors", BOT_A)
    # Nobody reads the meters: the process's flush thread sends them on its own.
    count_key = store._key("count", "successes")
    wait_for(lambda: client.get(count_key) == b"300" and store.pending() == 0)
    assert client.get(store._key("count", "errors")) == b"1"
    assert client.hgetall(store._key("errorsByBot")) == {BOT_A.encode(): b"1"}
    stats = client.info("commandstats")
    # 301 calls recorded in a few round trips (a flush may fall in the middle), not one each.
    assert stats["cmdstat_evalsha"]["calls"] + stats.get("cmdstat_eval", {}).get("calls", 0) <= 3
    # Another process's reading sees them all.
    report = metrics.ChatHttpMeters(metrics.RedisStore(private_redis.url, "test-flush")).report()
    assert (report["successes"]["count"], report["errors"]["count"]) == (300, 1)


def test_calls_counted_while_redis_is_down_are_sent_when_it_is_back(private_redis):
    # Flushed by the test alone: the process's flush thread (running when other tests used the meters)
    # would race it. The thread's own flushes are the test above's.
    store = metrics.RedisStore(private_redis.url, "test-outage", background_flush=False)
    meters = metrics.ChatHttpMeters(store)
    reader = metrics.ChatHttpMeters(metrics.RedisStore(private_redis.url, "test-outage"))
    for _ in range(5):
        meters.mark("successes")
    store.flush()
    private_redis.stop()
    for _ in range(3):
        meters.mark("successes")
    meters.mark("errors", BOT_B)
    with pytest.raises(Exception):  # noqa: B017 (redis-py's connection error)
        store.flush()
    assert store.pending() == 4  # kept, not lost
    with pytest.raises(Exception):  # noqa: B017 — the status reports the store down
        reader.report()
    private_redis.start()  # the same port, empty: Redis keeps nothing on disk here
    meters.mark("successes")
    store.flush()
    assert store.pending() == 0
    report = reader.report()
    assert report["successes"]["count"] == 4  # the 3 of the outage and the one after (the 5 before went with Redis)
    assert report["errors"]["count"] == 1
    assert report["errorsByBot"] == {BOT_B: 1}
