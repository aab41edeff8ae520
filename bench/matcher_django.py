"""The matcher alone, served like the platform (bench/talk_speed.py): one view that reads the talk's form
and runs only what the talk's matching runs (the demo bot's matcher for the language, over the items a
question may reach), on the platform's settings and database, with no middleware, dialog or storage.
Its throughput under the same gunicorn and worker count bounds what a talk in the same configuration
can reach; the talk's figure beside it shows what the rest of the talk costs. Never part of the product.

    DJANGO_SETTINGS_MODULE=bench.matcher_settings gunicorn -c deploy/gunicorn.conf.py bench.matcher_django:application
"""

import os
import threading

os.environ["DJANGO_SETTINGS_MODULE"] = "bench.matcher_settings"

import django

django.setup()

from django.http import JsonResponse  # noqa: E402
from django.urls import re_path  # noqa: E402

from bots.models import Bot  # noqa: E402
from knowledge.snapshot import snapshot_for  # noqa: E402
from tests.servers import BOT_UUID  # noqa: E402

_snapshot = None
_lock = threading.Lock()


def demo_snapshot():
    """The demo bot's knowledge snapshot, read once per process (the knowledge does not change during
    the benchmark): the matcher is measured, not the snapshot's lookup."""
    global _snapshot
    with _lock:
        if _snapshot is None:
            _snapshot = snapshot_for(Bot.objects.get(uuid=BOT_UUID))
    return _snapshot


def match(request):
    snapshot = demo_snapshot()
    language = snapshot.language(request.POST.get("language"))
    space_id = snapshot.space_id(request.POST.get("space"))
    space_id = snapshot.default_space_id if space_id is None else space_id
    matcher = snapshot.matcher(language)
    result = matcher.match(request.POST.get("userInput", ""), allowed=snapshot.allowed_items(language, space_id, False))
    return JsonResponse(
        {
            "type": "matchResponse",
            "values": {"outcome": result.outcome, "items": [c.item_id for c in result.candidates[:3]]},
        }
    )


urlpatterns = [re_path(r"", match)]
# The platform's own HTTP handler (config/http.py), so that both sides of the ratio pay the same stack.
from config.http import PooledThreadHandler  # noqa: E402

application = PooledThreadHandler()
