"""The site's error pages (403, 404, 500 and a refused CSRF token) in the back office's theme and language:
with the sidebar for staff, on the sign-in page's layout for anyone else. Servlet paths keep the servlet's
JSON errors. Wired as handler403/404/500 in config/urls.py and settings.CSRF_FAILURE_VIEW."""

import copy
import logging
from urllib.parse import urlencode

from django.contrib import admin
from django.contrib.auth.models import AnonymousUser
from django.http import HttpResponse
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.translation import gettext as _

from bots.servlet.errors import error_response
from bots.servlet.middleware import is_servlet_path

log = logging.getLogger(__name__)


def permission_denied(request, exception=None):
    """Django's handler403: a page someone may not open."""
    if _servlet(request):
        return error_response(403, "FORBIDDEN", "You are not allowed to do this.")
    user = _user(request)
    if user.is_authenticated:
        message = _("Your account %(user)s may not open this page: your role does not allow it.") % {
            "user": user.get_username()
        }
    else:
        message = _("Sign in with an account that may open this page.")
    return _page(
        request,
        403,
        icon="lock",
        heading=_("Access denied"),
        message=message,
        help=_("If you need it, ask an administrator of your account for the role that allows it."),
        actions=[_home(request), _sign_in(request, other=user.is_authenticated)],
    )


def page_not_found(request, exception=None):
    """Django's handler404."""
    if _servlet(request):
        return error_response(404, "NOT_FOUND", f"No servlet answers at {request.path}.")
    return _page(
        request,
        404,
        icon="search_off",
        heading=_("Page not found"),
        message=_("Nothing is at this address: it may have been mistyped, or what it showed was deleted."),
        actions=[_home(request)],
    )


def server_error(request):
    """Django's handler500: drawn without the database (which may be what failed) and never failing itself."""
    if _servlet(request):
        return error_response(500, "INTERNAL_ERROR", "The server failed to answer; the failure is logged.")
    return _page(
        request,
        500,
        icon="error",
        heading=_("Server error"),
        message=_("The server failed to show this page. The failure is logged for the administrators."),
        help=_("Try again in a moment; if it fails again, tell your administrator the time it happened."),
        actions=[(_("Try again"), request.get_full_path()), _home(request)],
        anonymous=True,
    )


def csrf_failure(request, reason=""):
    """settings.CSRF_FAILURE_VIEW: a form sent without a valid security token (an old page, blocked cookies)."""
    if _servlet(request):
        return error_response(403, "CSRF_FAILED", "The request's CSRF token is missing or invalid.")
    if reason == REASON_NO_CSRF_COOKIE:
        message = _("Your browser did not send this site's cookie: allow cookies for this site, then try again.")
    else:
        message = _("The form's security token has expired or does not match: the page was probably open too long.")
    return _page(
        request,
        403,
        icon="shield",
        heading=_("The form could not be sent"),
        message=message,
        help=_("Nothing was changed. Reload the page, then send the form again."),
        actions=[(_("Reload the page"), request.get_full_path()), _home(request)],
        code="csrf",
    )


def _servlet(request) -> bool:
    """A servlet call gets the servlet's JSON; a page people read under a servlet path (the token page,
    marked `person_page`) gets a page."""
    match = getattr(request, "resolver_match", None)
    return is_servlet_path(request.path) and not getattr(match and match.func, "person_page", False)


def _user(request):
    try:
        return request.user
    except Exception:  # the session or the database failed: the page is shown as to anyone
        return AnonymousUser()


def _is_staff(request) -> bool:
    user = _user(request)
    return bool(user.is_active and user.is_staff)


def _home(request) -> tuple[str, str]:
    if _is_staff(request):
        return _("Back office home"), "/admin/"
    return _("Home"), "/"


def _sign_in(request, *, other: bool) -> tuple[str, str]:
    text = _("Sign in with another account") if other else _("Sign in")
    return text, "/admin/login/?" + urlencode({"next": request.get_full_path()})


def _page(request, status: int, *, anonymous: bool = False, code: str = "", **shown) -> HttpResponse:
    staff = not anonymous and _is_staff(request)
    context = {**shown, "status": status, "code": code or str(status)}
    try:
        context.update(_theme(request, anonymous=not staff))
        template = "errors/staff.html" if staff else "errors/visitor.html"
        html = render_to_string(template, context, request=request)
    except Exception:
        # The theme itself failed (the database, a template): the same words, without it.
        log.exception("The %s page could not be drawn in the back office's theme", status)
        heading, message = escape(shown["heading"]), escape(shown["message"])
        html = f"<!doctype html><title>{status}</title><h1>{heading}</h1><p>{message}</p>"
    return HttpResponse(html, status=status)


def _theme(request, *, anonymous: bool) -> dict:
    """What the back office's pages are drawn with (unfold's colours, the site's name; the sidebar for staff)."""
    if anonymous:
        # For anyone else, and for a failure: the theme as an anonymous visitor gets it, which reads
        # neither the session nor the database.
        request = copy.copy(request)
        request.user = AnonymousUser()
    return admin.site.each_context(request)
