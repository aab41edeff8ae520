"""Builds the server status answer: the anonymous summary (status, date, version) or the full report."""

import socket
import threading
import time

from django.utils import timezone

from bots import metrics
from bots.version import version_string

from . import checks, volumes

# The chatbox calls serverstatus on every page load: an anonymous answer reuses the last overall
# status of this process for a few seconds instead of running every check each time.
SUMMARY_TTL_SECONDS = 10
_last_status: tuple[float, str] | None = None
_last_status_lock = threading.Lock()


def date_now() -> str:
    return timezone.localtime().strftime("%Y-%m-%d %H:%M:%S")


def applications() -> tuple[dict, str]:
    """Every application's check, and the overall status derived from them."""
    live_sessions = volumes.live_sessions()
    meters = metrics.chat_http()
    apps = {}
    apps["runtime"], _ = checks.run(checks.runtime)
    apps["dialog"], _ = checks.run(checks.dialog)
    apps["slogger"], _ = checks.run(checks.slogger)
    apps["website"], _ = checks.run(checks.website, live_sessions)
    apps["servlet"], requests = checks.run(checks.servlet, meters)
    if requests is not None:
        apps["servlet"]["requests"] = requests
    apps["sso"], _ = checks.run(checks.sso)
    apps["router"], _ = checks.run(checks.router)
    apps["livechat"], _ = checks.run(checks.livechat)
    apps["analytic"], _ = checks.run(checks.analytic)
    status = checks.overall(app["status"] for app in apps.values())
    _remember(status)
    return apps, status


def summary() -> dict:
    """What anyone may read: status, date and version."""
    return {"status": current_status(), "date": date_now(), "version": version_string()}


def current_status() -> str:
    with _last_status_lock:
        remembered = _last_status
    if remembered and time.monotonic() - remembered[0] < SUMMARY_TTL_SECONDS:
        return remembered[1]
    _, status = applications()
    return status


def full(details: bool) -> dict:
    """The report of servlet-api.md §4 for an authenticated caller; volumes and applications on details."""
    started = time.perf_counter()
    body: dict = {"withDetails": details}
    if details:
        body["volumes"] = volumes.volumes()
        body["applications"], status = applications()
    else:
        status = current_status()
    body.update(
        status=status,
        hostName=socket.gethostname(),
        date=date_now(),
        version=version_string(),
        durationMs=int((time.perf_counter() - started) * 1000),
    )
    return body


def _remember(status: str) -> None:
    global _last_status
    with _last_status_lock:
        _last_status = (time.monotonic(), status)


def forget() -> None:
    """Drop the remembered status (tests, or after a change that must show at once)."""
    global _last_status
    with _last_status_lock:
        _last_status = None
