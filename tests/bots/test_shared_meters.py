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
