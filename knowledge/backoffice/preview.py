"""The answer editor's rendered preview: answer HTML sanitised with the platform's allowlist (the
transcript's, knowledge/answer_html.py), on the page and refreshed while typing."""

from django.http import JsonResponse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from bots.servlet.errors import error_response
from knowledge.answer_html import clean

# A longer text is not an answer anyone typed: refused rather than sanitised.
MAX_CHARS = 100_000


def preview_html(text: str, url: str) -> str:
    """The pane shown under an answer's text: what the visitor sees, minus anything unsafe. `url` is the
    endpoint the page asks for a new rendering while the text is typed."""
    return format_html(
        '<div class="answer-preview max-w-none border border-base-200 rounded-default px-3 py-2 bg-base-50 '
        'text-sm dark:border-base-700 dark:bg-base-900" data-answer-preview="{}" data-testid="answer-preview">'
        "{}</div>",
        url,
        mark_safe(clean(text)) if text.strip() else "",
    )


def preview_view(model_admin):
    """POST text=… → {"html": sanitised HTML}; for users who may edit knowledge items."""

    @require_POST
    def view(request):
        if not (model_admin.has_change_permission(request) or model_admin.has_add_permission(request)):
            return error_response(403, "FORBIDDEN", _("You may not edit knowledge."))
        text = request.POST.get("text", "")
        if len(text) > MAX_CHARS:
            return error_response(400, "TOO_LONG", _("An answer is at most %(n)d characters.") % {"n": MAX_CHARS})
        return JsonResponse({"html": clean(text)})

    return view
