"""Builds the server status answer: the anonymous summary (status, date, version) or the full report.

Whenever the status is not Ok, the answer names what is wrong in `problems` (application, status and
a short public reason), the anonymous one too: monitoring without a token must see which check fails.
"""

import socket
import threading
import time

from django.utils import timezone

from bots.version import version_string

from . import checks, services, volumes

# The chatbox calls serverstatus on every page load: an anonymous answer reuses the last overall
# status of this process for a few seconds instead of running every check each time. Cheap probes of
# the shared services (one query, one cache read) still run on each call, so that a database or a
# cache that failed since is reported at once, never hidden behind a remembered Ok.
SUMMARY_TTL_SECONDS = 10


class _Remembered:
    def __init__(self, at: float, status: str, problems: list, failing: set, changes: int):
        self.at, self.status, self.problems, self.failing, self.changes = at, status, problems, failing, changes


_last: _Remembered | None = None
_last_lock = threading.Lock()


def date_now() -> str:
    return timezone.localtime().strftime("%Y-%m-%d %H:%M:%S")


def applications() -> tuple[dict, str]:
    """Every application's checks, and the overall status derived from them."""
    apps, status, _ = _measure()
    return apps, status


def _measure() -> tuple[dict, str, list]:
    probes = checks.probe_services()
    apps, problems = {}, []
    for name in checks.APPLICATIONS:
        apps[name], reasons = checks.run_application(name, probes)
        if apps[name]["status"] != checks.OK:
            problems.append({"application": name, "status": apps[name]["status"], "reason": "; ".join(reasons)})
    status = checks.overall(app["status"] for app in apps.values())
    _remember(status, problems, {name for name, probe in probes.items() if not probe.ok})
    return apps, status, problems


def summary() -> dict:
    """What anyone may read: status, date and version (and the problems, when there are some)."""
    status, problems = current_status_and_problems()
    body = {"status": status, "date": date_now(), "version": version_string()}
    if problems:
        body["problems"] = problems
    return body


def current_status() -> str:
    return current_status_and_problems()[0]


def current_status_and_problems() -> tuple[str, list]:
    with _last_lock:
        remembered = _last
    fresh = remembered is not None and time.monotonic() - remembered.at < SUMMARY_TTL_SECONDS
    if fresh and remembered.changes == services.database.changes:
        # Reused only while the same services fail: one that failed or came back since is measured.
        probes = checks.probe_services(quick=True)
        failing = {name for name, probe in probes.items() if not probe.ok}
        if failing == remembered.failing:
            return remembered.status, remembered.problems
    _, status, problems = _measure()
    return status, problems


def full(details: bool) -> dict:
    """The report of servlet-api.md §4 for an authenticated caller; volumes and applications on details."""
    started = time.perf_counter()
    body: dict = {"withDetails": details}
    if details:
        body["volumes"] = volumes.volumes()
        body["applications"], status, problems = _measure()
    else:
        status, problems = current_status_and_problems()
    body.update(
        status=status,
        hostName=socket.gethostname(),
        date=date_now(),
        version=version_string(),
        durationMs=int((time.perf_counter() - started) * 1000),
    )
    if problems:
        body["problems"] = problems
    return body


def _remember(status: str, problems: list, failing: set) -> None:
    global _last
    with _last_lock:
        _last = _Remembered(time.monotonic(), status, problems, failing, services.database.changes)


def forget() -> None:
    """Drop the remembered status (tests, or after a change that must show at once)."""
    global _last
    with _last_lock:
        _last = None
