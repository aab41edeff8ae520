"""The back office's analytics page (/admin/bots/analytics/) and its CSV exports, added to the admin site's
URLs; config/urls.py imports this module. Whoever may view a bot reads its analytics, for their own bots only."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from bots.admin_scoping import bots_of
from bots.servlet.errors import error_response
from bots.time_zones import use_bot_time_zone

from . import charts, export
from .periods import CUSTOM, DEFAULT_PERIOD, PERIOD_LABELS, PeriodForm
from .report import build_report

PERMISSION = "bots.view_bot"


def may_view(request) -> bool:
    """Who sees the page (the sidebar's link asks too): staff who may view bots."""
    user = request.user
    return user.is_active and user.is_staff and user.has_perm(PERMISSION)


def _bots(request):
    return bots_of(request.user).distinct().order_by("name", "pk")


class NotYourBot(Exception):
    """The query string names a bot that is not among the user's (or no bot at all)."""


def _form(request, bots) -> PeriodForm:
    """The filters from the query string (the user's first bot by default)."""
    wanted = request.GET.get("bot", "").strip()
    if wanted:
        if not (wanted.isascii() and wanted.isdigit()) or not bots.filter(pk=int(wanted)).exists():
            raise NotYourBot
    else:
        first = bots.first()
        wanted = first.pk if first else ""
    data = {
        "bot": wanted,
        "period": request.GET.get("period") or DEFAULT_PERIOD,
        "start": request.GET.get("start", ""),
        "end": request.GET.get("end", ""),
    }
    return PeriodForm(data, bots=bots)


def analytics_page(request):
    if not may_view(request):
        raise PermissionDenied
    bots = _bots(request)
    context = {**admin.site.each_context(request), "title": _("Analytics"), "custom": CUSTOM}
    try:
        form = _form(request, bots)
    except NotYourBot:
        # Refused as the admin refuses objects outside the user's scope (404), on a page that says so.
        context.update({"form": PeriodForm({"period": DEFAULT_PERIOD}, bots=bots), "not_your_bot": True})
        return TemplateResponse(request, "admin/bots/analytics/page.html", context, status=404)
    context.update({"form": form, "has_bots": bots.exists()})
    if form.is_valid():
        use_bot_time_zone(request, form.cleaned_data["bot"])
        report = build_report(form.cleaned_data["bot"], form.window())
        query = urlencode({key: value for key, value in form.data.items() if value})
        context.update(
            {
                "bot": form.cleaned_data["bot"],
                "period_label": PERIOD_LABELS[form.cleaned_data["period"]],
                "report": report,
                "charts": charts.charts(report),
                "csv_links": [
                    (_("Days"), reverse("admin:bots_analytics_csv", args=["days"]) + "?" + query),
                    (_("Rates"), reverse("admin:bots_analytics_csv", args=["rates"]) + "?" + query),
                    (_("Knowledge"), reverse("admin:bots_analytics_csv", args=["knowledge"]) + "?" + query),
                ],
                "knowledge_url": reverse("admin:knowledge_knowledgeitem_changelist"),
            }
        )
    return TemplateResponse(request, "admin/bots/analytics/page.html", context)


def analytics_csv(request, table: str):
    if not may_view(request):
        raise PermissionDenied
    if table not in export.TABLES:
        raise Http404(_("No such export."))
    try:
        form = _form(request, _bots(request))
    except NotYourBot:
        return error_response(404, "UNKNOWN_BOT", _("No such bot among yours."))
    if not form.is_valid():
        errors = {name: [str(error) for error in messages] for name, messages in form.errors.items()}
        return error_response(400, "INVALID_PERIOD", _("The period is not valid."), fields=errors)
    bot, window = form.cleaned_data["bot"], form.window()
    response = HttpResponse(export.render(build_report(bot, window), table), content_type="text/csv; charset=utf-8")
    days = window.days
    name = f"analytics-{table}-bot{bot.pk}-{days[0]:%Y%m%d}-{days[-1]:%Y%m%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _add_urls(site) -> None:
    """Put the page before the site's own URLs (a custom page with no model of its own)."""
    site_urls = site.get_urls

    def get_urls():
        return [
            path("bots/analytics/", site.admin_view(analytics_page), name="bots_analytics"),
            path("bots/analytics/<slug:table>.csv", site.admin_view(analytics_csv), name="bots_analytics_csv"),
            *site_urls(),
        ]

    site.get_urls = get_urls


_add_urls(admin.site)
