"""One real check per application of the server status; each says what it touched in `customs`.

A check that raises is Ko; one slower than SLOW_MS is Warning; a check may also return Warning itself
(e.g. SAML enabled on a bot while this server has no SAML service provider).
"""

import os
import platform
import resource
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from django.core.cache import cache
from django.db import connection
from django.urls import resolve
from django.utils import timezone

from bots.models import DEMO_BOT_UUID

OK, WARNING, KO, UNKNOWN = "Ok", "Warning", "Ko", "Unknown"
SLOW_MS = 2000
PROCESS_STARTED = time.time()


@dataclass
class Result:
    status: str = OK
    customs: dict = field(default_factory=dict)


def runtime() -> Result:
    """The Python process serving this request. The load average is reported, not judged: a busy
    machine is not a failing one, and monitoring has better sources for it."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    cpus = os.cpu_count() or 1
    customs = {
        "python": platform.python_version(),
        "pid": os.getpid(),
        "uptimeSeconds": int(time.time() - PROCESS_STARTED),
        "maxResidentMemoryMb": round(usage.ru_maxrss / 1024, 1),
        "loadAverage": round(load, 2) if load is not None else None,
        "cpus": cpus,
    }
    return Result(OK, customs)


def dialog() -> Result:
    """The dialog engine: its database and the matcher, which must rank a probe question first."""
    from dialogs.models import Dialog
    from knowledge.matching import FormulationEntry, Matcher, MatcherConfig

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    Dialog.objects.order_by().values("pk").first()
    probe = Matcher.build(
        "fr",
        [
            FormulationEntry(1, 1, "quels sont vos horaires d'ouverture"),
            FormulationEntry(2, 2, "j'ai perdu ma carte bancaire"),
            FormulationEntry(3, 3, "comment ouvrir un compte"),
        ],
        config=MatcherConfig(use_embeddings=False),
    )
    ranked = probe.rank("horaires d'ouverture de l'agence")
    understood = bool(ranked) and ranked[0].item_id == 1
    return Result(OK if understood else KO, {"database": connection.vendor, "matcher": "Ok" if understood else "Ko"})


def slogger() -> Result:
    """The dialog log: the interactions store and the time of the last interaction logged."""
    from dialogs.models import Interaction

    last = Interaction.objects.order_by("-created_at").values_list("created_at", flat=True).first()
    return Result(OK, {"lastInteraction": last.strftime("%Y-%m-%d %H:%M:%S") if last else None})


def website(live_sessions: int) -> Result:
    """The back office: its URL and its session store."""
    resolve("/admin/")
    return Result(OK, {"sessions": live_sessions})


def servlet(meters) -> Result:
    """The servlet API: the shared cache (failed-login lockout) and the chat-call metrics store."""
    key = f"serverstatus-probe:{uuid.uuid4().hex}"
    cache.set(key, 1, 10)
    cache_ok = cache.get(key) == 1
    cache.delete(key)
    requests = {"chatHttp": meters.report()}
    customs = {"cache": "Ok" if cache_ok else "Ko", "metricsStore": meters.store.kind}
    return Result(OK if cache_ok else KO, customs), requests


def sso() -> Result:
    """SAML for chatboxes: enabled per bot by chatbox.auth.saml.menu.enabled. This server has no SAML
    service provider yet, so a bot that enables it is a Warning; none enabled is Ok."""
    from preferences.models import BotPreference

    enabled = BotPreference.objects.filter(name="chatbox.auth.saml.menu.enabled", value="true").count()
    return Result(WARNING if enabled else OK, {"samlEnabledBots": enabled, "serviceProvider": False})


def router() -> Result:
    """The URL router: the chat routes of both prefixes must resolve."""
    probe = DEMO_BOT_UUID  # any UUID: only the routes are resolved
    for path in (f"/servlet/api/chat/talk/{probe}", f"/api/chat/talk/{probe}", "/servlet/api/serverstatus"):
        resolve(path)
    return Result(OK, {"routes": "Ok"})


def livechat() -> Result:
    """Live chat's transport: a message sent through the channel layer must come back, and the app
    that owns live chat (registered through `extend`) must find nothing wrong with the layer and
    report its queue."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return Result(KO, {"channelLayer": None})
    received = async_to_sync(_round_trip)(layer)
    backend = "redis" if "redis" in type(layer).__module__ else "in-memory"
    customs = {"channelLayer": backend}
    status = OK if received else KO
    inspect = _extensions.get("livechat")
    if inspect is not None:
        problem, more = inspect(layer)
        customs.update(more)
        if problem:
            status, customs["problem"] = KO, problem
    return Result(status, customs)


# application name → a function of the channel layer giving (problem or None, customs to report)
_extensions: dict = {}


def extend(application: str, inspect) -> None:
    """Let the app that owns an application add to its check (livechat: the layer's health, the queue)."""
    _extensions[application] = inspect


async def _round_trip(layer) -> bool:
    import asyncio

    # The default prefix: channels_redis pops every process-local channel of one prefix in one loop,
    # and a probe of another prefix would wait forever while a consumer holds that loop.
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "serverstatus.probe"})
    message = await asyncio.wait_for(layer.receive(channel), timeout=2)
    return message.get("type") == "serverstatus.probe"


def analytic() -> Result:
    """Analytics: the counted interactions of the last 24 hours, read as the reports read them."""
    from dialogs.models import Interaction

    since = timezone.now() - timedelta(hours=24)
    count = Interaction.objects.filter(counted=True, created_at__gte=since).count()
    return Result(OK, {"interactionsLast24h": count})


def run(check, *args) -> tuple[dict, object]:
    """Run one check; returns its application entry and whatever else the check returned."""
    started = time.perf_counter()
    extra = None
    try:
        outcome = check(*args)
        if isinstance(outcome, tuple):
            outcome, extra = outcome
        status, customs = outcome.status, outcome.customs
    except Exception as error:  # a failing dependency is what the status reports
        status, customs = KO, {"error": f"{type(error).__name__}: {str(error)[:200]}"}
    duration = int((time.perf_counter() - started) * 1000)
    if status == OK and duration > SLOW_MS:
        status = WARNING
    entry = {"status": status, "durationMs": duration}
    if customs:
        entry["customs"] = customs
    return entry, extra


def overall(statuses) -> str:
    statuses = list(statuses)
    if not statuses:
        return UNKNOWN
    for level in (KO, WARNING, UNKNOWN):
        if level in statuses:
            return level
    return OK
