"""The checks of the server status. Each app registers the checks of what it owns in its
AppConfig.ready (as Django's system checks are registered), under one of the applications the status
reports; bots/status never imports the apps above it.

    checks.register("slogger", last_interaction, needs=["database"])

A check returns a Result (or a Result and extra fields for its application's entry, e.g. the servlet's
`requests`). An application's status is the worst of its checks: a check that raises is Ko; a check
may also return Warning or Ko itself, with a `reason`. An application slower than SLOW_MS is Warning.

`needs` names the shared services a check uses ("database", "cache"): they are probed once per
report, and when one is down the checks needing it are Ko with its reason without being run, so that
the status answers at once during an outage instead of waiting on the database once per check.

Reasons are short and public (the anonymous status names the failing checks with them); what went
wrong in detail (error text, hosts) stays in `customs`, which only token holders read.
"""

import logging
import os
import platform
import resource
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connection
from django.urls import resolve

from bots import metrics
from bots.models import DEMO_BOT_UUID

from . import services

log = logging.getLogger(__name__)

OK, WARNING, KO, UNKNOWN = "Ok", "Warning", "Ko", "Unknown"
SLOW_MS = 2000
PROCESS_STARTED = time.time()
# The applications of servlet-api.md §4, in the order they are reported.
APPLICATIONS = ("runtime", "dialog", "slogger", "website", "servlet", "sso", "router", "livechat", "analytic")
SERVICES = ("database", "cache")
# What a check that needs a service gets while that service is down: without the database nothing is
# served (Ko); without the shared cache everything still works, each process counting in its own memory
# (FallbackCache: the lockout, the mail limits, the meters), so it is a Warning, not a reason to take
# every instance out of a load balancer.
SERVICE_DOWN_STATUS = {"database": "Ko", "cache": "Warning"}
CHECK_FAILED = "its check failed"


@dataclass
class Result:
    status: str = OK
    customs: dict = field(default_factory=dict)
    reason: str = ""  # why not Ok, for anyone: short, no error text


@dataclass(frozen=True)
class Check:
    application: str
    function: Callable
    needs: tuple[str, ...] = ()


_registry: dict[str, list[Check]] = {}


def register(application: str, function: Callable, *, needs=()) -> Callable:
    """Add a check to an application of the status (from an AppConfig.ready). Registering the same
    function twice keeps one."""
    if application not in APPLICATIONS:
        raise ValueError(f"the server status has no application {application!r}")
    unknown = set(needs) - set(SERVICES)
    if unknown:
        raise ValueError(f"unknown services {sorted(unknown)}; a check may need {SERVICES}")
    checks = _registry.setdefault(application, [])
    if all(check.function is not function for check in checks):
        checks.append(Check(application, function, tuple(needs)))
    return function


def registered(application: str) -> list[Check]:
    return list(_registry.get(application, ()))


# ---------------------------------------------------------------------------- the shared services


@dataclass
class Probe:
    """A shared service as one report found it."""

    ok: bool
    reason: str = ""
    error: str = ""


def probe_database() -> Probe:
    """One trivial query, unless the database is already known to be down (then no wait at all)."""
    reason = services.database_down()
    if reason:
        return Probe(False, reason, services.database.details().get("error", ""))
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        services.database.failed(error)
        return Probe(False, services.DATABASE_DOWN, _describe(error))
    return Probe(True)


def probe_cache(quick: bool = False) -> Probe:
    """The shared cache keeps a value (quick: it answers a read)."""
    try:
        if quick:
            cache.get("serverstatus-probe")
            return Probe(True)
        key = f"serverstatus-probe:{uuid.uuid4().hex}"
        cache.set(key, 1, 10)
        kept = cache.get(key) == 1
        cache.delete(key)
    except Exception as error:
        return Probe(False, services.CACHE_DOWN, _describe(error))
    return Probe(True) if kept else Probe(False, "the shared cache does not keep values", "")


def probe_services(quick: bool = False) -> dict[str, Probe]:
    return {"database": probe_database(), "cache": probe_cache(quick=quick)}


# ------------------------------------------------------------------------------- running the checks


def run_application(application: str, probes: dict[str, Probe]) -> tuple[dict, list[str]]:
    """Every check of one application: its entry of the report, and the reasons it is not Ok."""
    started = time.perf_counter()
    statuses, customs, reasons, extra = [], {}, [], {}
    for check in registered(application):
        down_names = [name for name in check.needs if name in probes and not probes[name].ok]
        down = [probes[name] for name in down_names]
        if down:
            status, found, reason, more = (
                overall(SERVICE_DOWN_STATUS[name] for name in down_names),
                {"error": "; ".join(p.error or p.reason for p in down)},
                down[0].reason,
                None,
            )
        else:
            status, found, reason, more = _run(check.function)
        statuses.append(status)
        if "error" in found and "error" in customs:
            found = {**found, "error": f"{customs['error']}; {found['error']}"}
        customs.update(found)
        if status != OK and reason and reason not in reasons:
            reasons.append(reason)
        extra.update(more or {})
    duration = int((time.perf_counter() - started) * 1000)
    status = overall(statuses)
    if status == OK and duration > SLOW_MS:
        status = WARNING
        reasons.append(f"slower than {SLOW_MS // 1000} s")
    entry = {"status": status, "durationMs": duration}
    if reasons:
        customs["reason"] = "; ".join(reasons)
    if customs:
        entry["customs"] = customs
    entry.update(extra)
    return entry, reasons


def _run(function: Callable) -> tuple[str, dict, str, dict | None]:
    try:
        outcome = function()
        more = None
        if isinstance(outcome, tuple):
            outcome, more = outcome
        return (
            outcome.status,
            dict(outcome.customs),
            outcome.reason or (CHECK_FAILED if outcome.status == KO else ""),
            more,
        )
    except Exception as error:  # a failing dependency is what the status reports
        if services.is_database_failure(error):
            services.database.failed(error)
            reason = services.DATABASE_DOWN
        elif services.is_cache_outage(error):
            return SERVICE_DOWN_STATUS["cache"], {"error": _describe(error)}, services.CACHE_DOWN, None
        else:
            log.warning("A server status check failed", exc_info=True)
            reason = CHECK_FAILED
        return KO, {"error": _describe(error)}, reason, None


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error)[:200]}"


def overall(statuses) -> str:
    statuses = list(statuses)
    if not statuses:
        return UNKNOWN
    for level in (KO, WARNING, UNKNOWN):
        if level in statuses:
            return level
    return OK


# ------------------------------------------------------------------- what the bots app itself owns


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


def database() -> Result:
    """The database every app keeps its state in (the dialog application reports it): run only when
    its probe answered."""
    return Result(OK, {"database": connection.vendor})


def servlet_cache() -> Result:
    """The shared cache (failed-login lockout, export slots): run only when its probe kept a value."""
    return Result(OK, {"cache": "Ok"})


def servlet_meters() -> tuple[Result, dict]:
    """The chat-call metrics store, and the meters themselves (the servlet's `requests`)."""
    meters = metrics.chat_http()
    return Result(OK, {"metricsStore": meters.store.kind}), {"requests": {"chatHttp": meters.report()}}


def router() -> Result:
    """The URL router: the chat routes of both prefixes must resolve."""
    probe = DEMO_BOT_UUID  # any UUID: only the routes are resolved
    for path in (f"/servlet/api/chat/talk/{probe}", f"/api/chat/talk/{probe}", "/servlet/api/serverstatus"):
        resolve(path)
    return Result(OK, {"routes": "Ok"})


def register_own() -> None:
    """The bots app's checks (from BotsConfig.ready)."""
    register("runtime", runtime)
    register("dialog", database, needs=["database"])
    register("servlet", servlet_cache, needs=["cache"])
    register("servlet", servlet_meters)
    register("router", router)
