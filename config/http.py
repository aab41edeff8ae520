"""Django's HTTP handler under ASGI, with each request's synchronous work on a thread that outlives it.

Django's own ASGIHandler gives every request a new thread for its sync code (signals, middleware,
view, closing), then a second new thread to join the first: under a talk load, starting, shutting
down and joining them were 14-20 % of a worker's py-spy samples (bench/TALK.md). Here a request borrows a
one-thread executor from a per-process pool and gives it back, so the guarantees stay Django's (all
of one request's thread-sensitive code in one thread, no two requests in the same thread at once,
the knowledge export's stream in its request's thread) without the thread churn.

The middleware chain is also built synchronous (every middleware here is sync): Django's async chain
adapts the sync chain back to async at its bottom, two more hops between the event loop and the
request's thread for each request.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler

# Idle threads kept per process; a burst beyond them starts threads as Django would, and the extra
# ones stop once idle again.
IDLE_THREADS = 32


class RequestThread(ThreadPoolExecutor):
    """One thread, and how many calls are submitted to it and not yet done."""

    def __init__(self):
        super().__init__(max_workers=1, thread_name_prefix="request")
        self._lock = threading.Lock()
        self.pending = 0

    def submit(self, fn, /, *args, **kwargs):
        with self._lock:
            self.pending += 1
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(self._done)
        return future

    def _done(self, _future):
        with self._lock:
            self.pending -= 1


class RequestThreads:
    """The process's idle request threads (last in, first out: the warmest thread goes first)."""

    def __init__(self, idle: int = IDLE_THREADS):
        self.idle_limit = idle
        self.idle: list[RequestThread] = []
        self._lock = threading.Lock()

    def take(self) -> RequestThread:
        with self._lock:
            if self.idle:
                return self.idle.pop()
        return RequestThread()

    def give_back(self, thread: RequestThread) -> None:
        # A request whose task was cancelled (the client left) may have left its view running: that
        # thread serves nobody else and stops once its call ends.
        if thread.pending == 0:
            with self._lock:
                if len(self.idle) < self.idle_limit:
                    self.idle.append(thread)
                    return
        thread.shutdown(wait=False)


class PooledThreadHandler(ASGIHandler):
    """Django's ASGIHandler, one pooled thread per request and a synchronous middleware chain."""

    def __init__(self):
        self.threads = RequestThreads()
        super().__init__()

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        thread = self.threads.take()
        try:
            async with ThreadSensitiveContext(executor=thread):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(thread)

    async def get_response_async(self, request):
        # The whole synchronous chain (middleware, view, the response's logging) in one hop.
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)
