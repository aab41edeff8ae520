"""The back office's "Import / export" page of a bot: import a knowledge base file (upload with progress,
then the formulation vectors' progress), export it with or without the gallery, delete it after a
confirmation naming what goes. The servlet API's own importer, exporter, deleter, upload limit and
rights (accounts.permissions: knowledge.read to see and export, knowledge.edit to import and delete)."""

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect, JsonResponse, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from accounts.permissions import can, check_allowed
from bots.admin_scoping import bots_of
from bots.servlet.errors import Forbidden, ServletError

from .. import exchange
from ..api.uploads import LimitedUploadHandler
from ..api.views import download_name, file_response
from ..exchange.exports import ExportSlot, SlotStream
from ..vectors.progress import knowledge_base_status
from .exchange_texts import count_list, count_rows, refusal_text, size_text

PAGE = "admin/knowledge/exchange/page.html"
CONFIRM = "admin/knowledge/exchange/delete.html"
WAITING = ("pending", "running")


def may_view(request) -> bool:
    """The sidebar's entry (config/settings.py UNFOLD): staff whose role may export (knowledge.read)."""
    user = request.user
    return user.is_active and user.is_staff and can(user, "knowledge.read")


def _bot(request, bot_id: int, action: str):
    """The user's bot (404 for any other) if their role allows `action` on it (403 otherwise)."""
    bot = bots_of(request.user).filter(pk=bot_id).first()
    if bot is None:
        raise Http404(_("No such bot among yours."))
    try:
        check_allowed(request.user, action, bot=bot)
    except Forbidden:
        raise PermissionDenied from None
    return bot


def page_url(bot) -> str:
    return reverse("admin:knowledge_exchange", args=[bot.pk])


def index_view(request):
    """The first of the user's bots they may export, or a page saying there is none."""
    if not may_view(request):
        raise PermissionDenied
    for bot in bots_of(request.user).distinct().order_by("name", "pk"):
        if can(request.user, "knowledge.read", bot=bot):
            return HttpResponseRedirect(page_url(bot))
    context = {**admin.site.each_context(request), "title": _("Import / export")}
    return TemplateResponse(request, PAGE, context)


def _page(request, bot, *, result=None, refusal=None, status=200):
    user = request.user
    readable = [b for b in bots_of(user).distinct().order_by("name", "pk") if can(user, "knowledge.read", bot=b)]
    vectors = knowledge_base_status(bot)["vectors"]
    context = {
        **admin.site.each_context(request),
        "title": _("Import / export"),
        "bot": bot,
        "bots": [(b, page_url(b)) for b in readable],
        "may_edit": can(user, "knowledge.edit", bot=bot),
        "holds": count_rows(exchange.knowledge_counts(bot, gallery=True)),
        "max_bytes": settings.KB_UPLOAD_MAX_BYTES,
        "max_size": size_text(settings.KB_UPLOAD_MAX_BYTES),
        "status_url": reverse("admin:knowledge_exchange_status", args=[bot.pk]),
        # Vectors still being computed from an earlier import show on the page too.
        "vectors": vectors if vectors["state"] in WAITING else None,
        "result": result,
        "refusal": refusal,
    }
    return TemplateResponse(request, PAGE, context, status=status)


def page_view(request, bot_id: int):
    return _page(request, _bot(request, bot_id, "knowledge.read"))


def status_view(request, bot_id: int):
    """What the page polls while the formulation vectors are computed: the status servlet's answer."""
    return JsonResponse(knowledge_base_status(_bot(request, bot_id, "knowledge.read")))


def export_view(request, bot_id: int):
    bot = _bot(request, bot_id, "knowledge.read")
    slot = ExportSlot(request.user.pk)
    if not slot.acquire():
        messages.error(request, _("An export of yours is already running; wait for it to finish and try again."))
        return HttpResponseRedirect(page_url(bot))
    gallery = request.GET.get("gallery") == "1"
    chunks = SlotStream(exchange.export_knowledge_base(bot, gallery=gallery), slot)
    return file_response(request, chunks, download_name(bot, "knowledge base"))


@csrf_exempt  # checked below, once the upload handlers are in place (Django reads the body to check)
def import_view(request, bot_id: int):
    bot = _bot(request, bot_id, "knowledge.edit")  # before a byte of the file is read
    if request.method != "POST":
        return HttpResponseRedirect(page_url(bot))
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > settings.KB_UPLOAD_MAX_BYTES:
        return _refused(request, bot, "TOO_LARGE", status=413)
    # Every file goes to a temporary file, counted as it arrives: 413 past the limit, whatever was declared.
    request.upload_handlers = [LimitedUploadHandler(request)]
    try:
        return _checked_import(request, bot)
    except ServletError as error:  # raised while the body is read (too large)
        return _refused(request, bot, error.code, status=error.status)
    except (MultiPartParserError, UnreadablePostError):  # a broken or interrupted upload
        return _refused(request, bot, "UNREADABLE", status=400)


@csrf_protect
def _checked_import(request, bot):
    upload = request.FILES.get("file")
    if upload is None:
        return _refused(request, bot, "MISSING_FIELD", status=400)
    if not upload.size:
        return _refused(request, bot, "EMPTY_FILE", status=400)
    try:
        upload.seek(0)
        report = exchange.import_knowledge_base(bot, upload, user=request.user)
    except ServletError as error:
        return _refused(request, bot, error.code, status=error.status, details=error)
    finally:
        upload.close()
    bot.refresh_from_db()
    result = {
        "rows": count_rows(report.counts),
        "seconds": report.duration_ms / 1000,
        "vectors": report.vectors,
        "name": upload.name,
    }
    return _page(request, bot, result=result)


def _refused(request, bot, code: str, *, status: int, details=None):
    refusal = {"code": code, "text": refusal_text(code)}
    if code == "TOO_LARGE":
        refusal["limit"] = size_text(settings.KB_UPLOAD_MAX_BYTES)
    if details is not None:
        refusal["line"] = getattr(details, "line", None)
        refusal["column"] = getattr(details, "column", None)
        # The parser's own words (English), for whoever fixes the file.
        refusal["reason"] = getattr(details, "reason", None) or details.message
    return _page(request, bot, refusal=refusal, status=status)


def delete_view(request, bot_id: int):
    """GET: what would go, and a confirmation; POST (CSRF-checked by the admin): delete it."""
    bot = _bot(request, bot_id, "knowledge.edit")
    if request.method not in ("GET", "POST"):
        return HttpResponseNotAllowed(["GET", "POST"])
    gallery = (request.POST if request.method == "POST" else request.GET).get("gallery") == "1"
    if request.method == "POST":
        try:
            report = exchange.delete_knowledge_base(bot, gallery=gallery)
        except ServletError as error:
            messages.error(request, refusal_text(error.code))
            return HttpResponseRedirect(page_url(bot))
        deleted = count_list(report["deleted"])
        messages.success(request, _("The knowledge base was deleted (%(deleted)s).") % {"deleted": deleted})
        return HttpResponseRedirect(page_url(bot))
    context = {
        **admin.site.each_context(request),
        "title": _("Delete the knowledge base"),
        "bot": bot,
        "gallery": gallery,
        "goes": count_rows(exchange.knowledge_counts(bot, gallery=gallery)),
        "page_url": page_url(bot),
        "export_url": reverse("admin:knowledge_exchange_export", args=[bot.pk]) + ("?gallery=1" if gallery else ""),
    }
    return TemplateResponse(request, CONFIRM, context)


def _add_urls(site) -> None:
    """The page's URLs before the site's own (a page with no model of its own)."""
    site_urls = site.get_urls

    def get_urls():
        view = site.admin_view
        return [
            path("knowledge/exchange/", view(index_view), name="knowledge_exchange_index"),
            path("knowledge/exchange/<int:bot_id>/", view(page_view), name="knowledge_exchange"),
            path("knowledge/exchange/<int:bot_id>/status/", view(status_view), name="knowledge_exchange_status"),
            path("knowledge/exchange/<int:bot_id>/export/", view(export_view), name="knowledge_exchange_export"),
            path("knowledge/exchange/<int:bot_id>/import/", view(import_view), name="knowledge_exchange_import"),
            path("knowledge/exchange/<int:bot_id>/delete/", view(delete_view), name="knowledge_exchange_delete"),
            *site_urls(),
        ]

    site.get_urls = get_urls


_add_urls(admin.site)
