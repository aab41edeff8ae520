"""A bare Django project for bench/talk_load.py: one JSON view that reads a form and answers, with no
database, middleware or matching, served by the same gunicorn (deploy/gunicorn.conf.py), uvicorn workers
and nginx as the platform. What it serves is the stack's own cost; the talk's figures beside it show
what the platform adds. Never part of the product's URLs.

With BARE_SPIN_MS set, each request first spins in Python for that many milliseconds of its thread's CPU
(holding the GIL, as the talk's Python does) and chat calls take turns as the platform's do: the control of
bench/talk_speed.py's p99 runs, a request as costly as a talk that waits on nothing, so that what queueing
alone gives on this machine is measured.

    gunicorn -c deploy/gunicorn.conf.py bench.bare_django:application
"""

import os
import time

import django
from django.conf import settings
from django.http import JsonResponse
from django.urls import re_path

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    SECRET_KEY="bench-only, no session or signature uses it",
    MIDDLEWARE=[],
    INSTALLED_APPS=[],
    USE_TZ=True,
)


SPIN_SECONDS = float(os.environ.get("BARE_SPIN_MS") or 0) / 1000


def spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def answer(request):
    """Reads the form as the talk does and answers a JSON body of the talk's shape."""
    user_input = request.POST.get("userInput", "")
    if SPIN_SECONDS:
        spin(SPIN_SECONDS)
    return JsonResponse(
        {"type": "talkResponse", "values": {"text": user_input[:200], "serverTime": int(time.time() * 1000)}}
    )


# Every path: the layout's readiness check (/servlet/api/serverstatus) and the talk's URL alike.
urlpatterns = [re_path(r"", answer)]

django.setup()
# The platform's own HTTP handler (config/http.py), so that both sides of the ratio pay the same stack.
from config.http import PooledThreadHandler  # noqa: E402

application = PooledThreadHandler()
if SPIN_SECONDS:
    # As costly as a talk, served as talks are: a few at a time per process (bots/servlet/gate.py; without
    # it, a burst's spinning threads took turns on the GIL and each request cost 2-3 ms more CPU).
    from bots.servlet.gate import gated_chat

    application = gated_chat(application)
