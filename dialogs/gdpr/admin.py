"""GDPR requests in the back office (administrators only: they carry visitors' ids and addresses): the
list, and each request's page with what is held about the visitor, the action it calls for (send the
data, erase it, or ignore the request with a reason) and the log of what was done."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

from bots.admin_scoping import BotScopedAdmin, bots_of
from bots.time_zones import use_bot_time_zone

from ..backoffice.admin import Heading, may_see_visitor
from ..backoffice.filters import language_name
from ..models import GdprRequest
from . import data, processing
from .models import GdprAction

STATUS_STYLES = {
    GdprRequest.Status.PENDING: "bg-orange-100 text-orange-700",
    GdprRequest.Status.SENT: "bg-green-100 text-green-700",
    GdprRequest.Status.DELETED: "bg-green-100 text-green-700",
    GdprRequest.Status.IGNORED: "bg-base-100 text-base-700",
}


def may_view(request) -> bool:
    """The sidebar's GDPR entry (settings.UNFOLD): for those who may see visitors' ids and the requests."""
    return may_see_visitor(request) and request.user.has_perm("dialogs.view_gdprrequest")


class GdprRequestAdmin(BotScopedAdmin):
    list_display = ["received", "kind", "address", "visitor", "sent_from", "status_label", "last_action", "bot"]
    list_display_links = ["received"]
    list_filter = ["status", "object", ("bot", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["mail", "=client_id"]
    actions = None

    def get_queryset(self, request):
        latest = GdprAction.objects.filter(request=OuterRef("pk")).order_by("-at", "-id")
        return (
            super()
            .get_queryset(request)
            .select_related("bot")
            .annotate(
                last_kind=Subquery(latest.values("kind")[:1]),
                last_by=Subquery(latest.values("user_name")[:1]),
                last_at=Subquery(latest.values("at")[:1]),
            )
        )

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # the request and its log are the record of what was done

    # GDPR requests carry visitors' ids and e-mail addresses: those who may see visitors' ids only.
    def has_module_permission(self, request):
        return may_see_visitor(request) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return may_see_visitor(request) and super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return may_see_visitor(request) and super().has_change_permission(request, obj)

    @admin.display(description=_("Received"), ordering="created_at")
    def received(self, gdpr_request):
        received = date_format(timezone.localtime(gdpr_request.created_at), "SHORT_DATETIME_FORMAT")
        return format_html('<span class="whitespace-nowrap">{}</span>', received)

    @admin.display(description=_("Request"), ordering="object")
    def kind(self, gdpr_request):
        return gdpr_request.get_object_display()

    @admin.display(description=_("E-mail"), ordering="mail")
    def address(self, gdpr_request):
        return gdpr_request.mail or "—"

    @admin.display(description=_("Visitor id"), ordering="client_id")
    def visitor(self, gdpr_request):
        return gdpr_request.client_id or "—"

    @admin.display(description=_("Sent from"))
    def sent_from(self, gdpr_request):
        return gdpr_request.requester_ip or "—"

    def get_list_display(self, request):
        columns = list(super().get_list_display(request))
        # One bot: its name in every row says nothing.
        return columns if bots_of(request.user)[:2].count() > 1 else columns[:-1]

    @admin.display(description=_("Status"), ordering="status")
    def status_label(self, gdpr_request):
        return format_html(
            '<span class="inline-block font-semibold rounded-default text-[11px] uppercase whitespace-nowrap '
            'h-6 leading-6 px-2 {}" data-status="{}">{}</span>',
            STATUS_STYLES.get(gdpr_request.status, ""),
            gdpr_request.status,
            gdpr_request.get_status_display(),
        )

    @admin.display(description=_("Last action"))
    def last_action(self, gdpr_request):
        if not gdpr_request.last_kind:
            return "—"
        return _t("%(action)s by %(user)s, %(at)s") % {
            "action": GdprAction.Kind(gdpr_request.last_kind).label,
            "user": gdpr_request.last_by or "—",
            "at": date_format(timezone.localtime(gdpr_request.last_at), "SHORT_DATETIME_FORMAT"),
        }

    # A request's page: what is held, the action to take, the log.
    def change_view(self, request, object_id, form_url="", extra_context=None):
        gdpr_request = get_object_or_404(self.get_queryset(request), pk=object_id)
        if not self.has_view_permission(request, gdpr_request):
            raise PermissionDenied
        use_bot_time_zone(request, gdpr_request.bot)  # times in the bot's time zone
        errors = {}
        if request.method == "POST":
            if not self.has_change_permission(request, gdpr_request):
                raise PermissionDenied
            done, errors = self._process(request, gdpr_request)
            if done:
                return HttpResponseRedirect(request.path)
        received = date_format(timezone.localtime(gdpr_request.created_at), "SHORT_DATETIME_FORMAT")
        title = _t("%(request)s, %(date)s") % {"request": gdpr_request.get_object_display(), "date": received}
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "original": Heading(gdpr_request, title),
            "gdpr": gdpr_request,
            "held": data.summary(gdpr_request),
            "log": list(gdpr_request.actions.select_related(None).order_by("at", "id")),
            "may_process": self.has_change_permission(request, gdpr_request)
            and gdpr_request.status == GdprRequest.Status.PENDING,
            "errors": errors,
            "reason": request.POST.get("reason", "") if request.method == "POST" else "",
            "status_style": STATUS_STYLES.get(gdpr_request.status, ""),
            "language": language_name(gdpr_request.language) if gdpr_request.language else "—",
            "list_url": reverse("admin:dialogs_gdprrequest_changelist"),
        }
        return TemplateResponse(request, "admin/dialogs/gdprrequest/process.html", context)

    def _process(self, request, gdpr_request):
        """Runs the posted action; (True, {}) when done, else (False, the form's errors by action)."""
        action = request.POST.get("action", "")
        try:
            if action == "send":
                processing.send_data(gdpr_request, request.user)
                self.message_user(
                    request, _t("The data was sent to %(mail)s.") % {"mail": gdpr_request.mail}, messages.SUCCESS
                )
            elif action == "delete":
                if request.POST.get("confirm") != "yes":
                    return False, {"delete": _t("Tick the box to confirm: the data is erased for good.")}
                done = processing.delete_data(gdpr_request, request.user)
                erased = _t(
                    "The visitor's data was erased: %(dialogs)d dialog(s), %(interactions)d interaction(s)."
                ) % {
                    "dialogs": done.counts.get("dialogs", 0),
                    "interactions": done.counts.get("interactions", 0),
                }
                # What became of the confirmation mail, as it is: sent, only written, or failed.
                told = f"{erased} {done.note}" if done.note else erased
                self.message_user(request, told, messages.WARNING if done.confirmed is False else messages.SUCCESS)
            elif action == "ignore":
                processing.ignore(gdpr_request, request.user, request.POST.get("reason", ""))
                self.message_user(request, _t("The request is ignored; the visitor is not told."), messages.SUCCESS)
            else:
                return False, {"action": _t("Choose an action: send, delete or ignore.")}
        except processing.Refused as refusal:
            level = messages.WARNING if isinstance(refusal, processing.NotSent) else messages.ERROR
            self.message_user(request, str(refusal), level)
            return False, {action: str(refusal)}
        return True, {}
