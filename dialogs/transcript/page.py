"""The printable transcript of a dialog (CV5's print menu, client-contract.md §2.2 (23)): every exchange in
order, the visitor's words as text, answers through the console's HTML allowlist, the labels the chatbox
chose; a page that prints well and runs no script. The visitor's copy speaks the dialog's language (its
labels, dates and the operator's default name); a page without a dialog, the visitor's browser's."""

from dataclasses import dataclass

from django.conf import settings
from django.shortcuts import render
from django.utils import timezone, translation
from django.utils.translation import pgettext, pgettext_lazy

from dialogs.contexts import parse_context_id, still_active
from dialogs.models import Dialog, Interaction
from knowledge.answer_html import clean

LABEL_MAX_CHARS = 40
DEFAULT_USER_LABEL = pgettext_lazy("transcript", "Me")
DEFAULT_BOT_LABEL = "Chatbot"
# Nothing runs, nothing is fetched but the answers' images; the page may not be framed.
POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@dataclass
class Line:
    side: str  # "visitor", "bot" or "operator"
    author: str
    at: object
    text: str = ""  # plain text (escaped by the template)
    html: str = ""  # answer HTML, already cleaned
    file: dict | None = None

    @property
    def size(self) -> str:
        """The file's size as the console shows it (o, Ko, Mo)."""
        count = int((self.file or {}).get("size") or 0)
        if count < 1024:
            return f"{count} o"
        if count < 1024 * 1024:
            return f"{count / 1024:.1f} Ko".replace(".", ",")
        return f"{count / (1024 * 1024):.1f} Mo".replace(".", ",")


def printable_dialog(context_id: str, bot=None) -> Dialog | None:
    """The dialog of a live context id (of `bot` when given); None when unknown, malformed or revoked."""
    parsed = parse_context_id(context_id)
    if parsed is None:
        return None
    dialogs = Dialog.objects.filter(uuid=parsed).select_related("bot")
    if bot is not None:
        dialogs = dialogs.filter(bot=bot)
    return still_active(dialogs.first())


def label(value: str, default: str) -> str:
    value = " ".join((value or "").split())[:LABEL_MAX_CHARS]
    return value or default


def lines(dialog: Dialog, user_label: str, bot_label: str, rows=None, hide_request=None) -> list[Line]:
    """Every exchange in order (`rows`: the dialog's interactions unless given); no visitor line for the
    inputs `hide_request` says the chatbox did not show."""
    result = []
    if rows is None:
        rows = Interaction.objects.filter(dialog=dialog).order_by("created_at", "id")
    for row in rows:
        payload = row.payload or {}
        upload = payload.get("upload")
        if upload:
            result.append(Line("visitor", user_label, row.created_at, file=upload))
        elif row.user_input.strip() and not (hide_request and hide_request(row)):
            result.append(Line("visitor", user_label, row.created_at, text=row.user_input))
        answer = clean(row.answer).strip()
        if answer:
            operator = payload.get("fromDetail") or pgettext("transcript", "Adviser")
            side, author = ("operator", operator) if row.human else ("bot", bot_label)
            result.append(Line(side, author, row.created_at, html=answer))
    return result


def transcript_page(request, dialog: Dialog, user_label: str, bot_label: str):
    with translation.override(visitor_language(dialog)):
        user_label = str(label(user_label, DEFAULT_USER_LABEL))
        bot_label = label(bot_label, DEFAULT_BOT_LABEL)
        context = {
            "dialog": dialog,
            "bot_name": dialog.bot.name,
            "lines": lines(dialog, user_label, bot_label),
            "user_label": user_label,
            "bot_label": bot_label,
            "printed_at": timezone.localtime(),
        }
        return secured(render(request, "dialogs/transcript.html", context))


def not_found_page(request, status: int = 404, reason: str = ""):
    with translation.override(browser_language(request)):
        missing = pgettext("transcript", "This conversation does not exist or is no longer available.")
        context = {"status": status, "reason": str(reason) or missing}
        return secured(render(request, "dialogs/transcript_missing.html", context, status=status))


def visitor_language(dialog: Dialog) -> str:
    """The language of the visitor's copy: the dialog's, or the site's default for one the pages do not speak."""
    code = (dialog.language or "").lower()[:2]
    return code if code in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def browser_language(request) -> str:
    """Without a dialog, the visitor's browser says (Accept-Language); French when it says nothing, as before."""
    if not request.headers.get("Accept-Language"):
        return "fr"
    return translation.get_language_from_request(request)


def secured(response):
    """A transcript page as it is served: no script, never framed, never cached (the staff's print too)."""
    response.servlet_page = True  # its 404 stays this page (bots/servlet/middleware.py)
    response["Content-Security-Policy"] = POLICY
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    return response
