"""Django's HTTP requests on pooled threads (config/http.py): all of one request's sync work (signals,
middleware, view) in one thread, the thread reused by the next request instead of a new one started and
joined per request, two requests at once on two threads, and a thread still busy never lent again."""

import asyncio
import threading
import time

import pytest
from channels.testing import HttpCommunicator
from django.core.signals import request_finished, request_started

from config.asgi import django_asgi_app
from config.http import RequestThread, RequestThreads

STATUS = "/servlet/api/serverstatus"


@pytest.fixture
def threads_seen():
    """Which thread ran each request's request_started and request_finished receivers (the thread
    objects: an ident is reused once its thread ends)."""
    seen = {"started": [], "finished": []}

    def started(**kwargs):
        seen["started"].append(threading.current_thread())

    def finished(**kwargs):
        seen["finished"].append(threading.current_thread())

    request_started.connect(started)
    request_finished.connect(finished)
    yield seen
    request_started.disconnect(started)
    request_finished.disconnect(finished)


def get(path: str) -> dict:
    async def request():
        communicator = HttpCommunicator(django_asgi_app, "GET", path, headers=[(b"host", b"localhost")])
        response = await communicator.get_response(timeout=30)
        await communicator.wait(timeout=30)  # the handler's end: the response closed, request_finished sent
        return response

    return asyncio.run(request())


@pytest.mark.django_db(transaction=True)
def test_requests_one_after_another_reuse_one_thread(threads_seen):
    assert get(STATUS)["status"] == 200
    threads_after_one = threading.active_count()
    for _ in range(20):
        assert get(STATUS)["status"] == 200
    # Each request's receivers ran in one thread, and every request in the same one: none was started
    # (Django's own handler starts two per request: the request's and the one that joins it).
    assert threads_seen["started"] == threads_seen["finished"]
    assert len(set(threads_seen["started"])) == 1
    assert threads_seen["started"][0] is not threading.current_thread()
    assert threading.active_count() == threads_after_one


def test_two_requests_at_once_get_two_threads_and_a_busy_one_is_not_lent_again():
    pool = RequestThreads(idle=4)
    first, second = pool.take(), pool.take()
    assert first is not second
    release = threading.Event()
    busy = first.submit(release.wait)
    assert first.pending == 1
    pool.give_back(first)  # its call still runs (a request whose client left): not lent again
    pool.give_back(second)
    assert pool.take() is second
    assert pool.take() is not first
    release.set()
    busy.result(timeout=5)


def test_idle_threads_beyond_the_limit_stop():
    pool = RequestThreads(idle=1)
    kept, extra = RequestThread(), RequestThread()
    for thread in (kept, extra):
        thread.submit(lambda: None).result(timeout=5)
    deadline = time.monotonic() + 5
    while (kept.pending or extra.pending) and time.monotonic() < deadline:
        time.sleep(0.01)  # a call's done-callback runs just after its result is set
    pool.give_back(kept)
    pool.give_back(extra)
    assert pool.idle == [kept]
    assert extra._shutdown
