"""#dydumailto:{ctx}:{email}# (client-contract.md §2.2 (24)): the chatbox's "send me this conversation"
e-mails the dialog's transcript to that address, a few times per dialog at most, and says so."""

import html
import logging
import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.core.validators import validate_email
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import strip_tags

from bots.status.services import FallbackCache
from preferences.services import bot_value

from .contexts import parse_context_id
from .handover import Reply
from .models import Dialog
from .transcript.page import DEFAULT_BOT_LABEL, DEFAULT_USER_LABEL, lines

log = logging.getLogger(__name__)

MAILTO = re.compile(r"^#dydumailto:([^:#]*):(.*)#$", re.DOTALL)
# No mail bomb: one dialog's transcript goes out at most this often in this window.
MAILS_PER_DIALOG = 3
WINDOW_SECONDS = 3600
# The shared cache, or this process's memory while it is unreachable (the limit holds, the talk answers).
cache = FallbackCache("the transcript mail limit")
SENT = "DMExportByMail"
REFUSED = "DMExportByMailRefused"

WORDS = {
    "fr": {
        "sent": "La conversation a été envoyée à {email}.",
        "invalid": "« {email} » n'est pas une adresse e-mail valide : la conversation n'a pas été envoyée.",
        "unknown": "Je ne trouve pas cette conversation : elle n'a pas été envoyée.",
        "limit": "Cette conversation a déjà été envoyée {count} fois : réessayez plus tard.",
        "failed": "L'e-mail n'a pas pu partir. Réessayez plus tard.",
        "subject": "Votre conversation avec {service}",
        "intro": "Voici votre conversation avec {service}.",
    },
    "en": {
        "sent": "The conversation was sent to {email}.",
        "invalid": "“{email}” is not a valid e-mail address: the conversation was not sent.",
        "unknown": "I cannot find this conversation: it was not sent.",
        "limit": "This conversation has already been sent {count} times: try again later.",
        "failed": "The e-mail could not be sent. Try again later.",
        "subject": "Your conversation with {service}",
        "intro": "Here is your conversation with {service}.",
    },
}


def is_mailto(text: str) -> bool:
    return text.startswith("#dydumailto:")


def export(bot, dialog: Dialog, text: str) -> Reply:
    """Send the transcript the input names; the reply says what happened (nothing is sent on a refusal)."""
    words = WORDS.get(dialog.language, WORDS["en"])
    match = MAILTO.match(text)
    email = (match.group(2) if match else "").strip()
    shown = html.escape(email[:100])
    if not match or not _valid(email):
        return _refused(words["invalid"].format(email=shown))
    source = _dialog(bot, dialog, match.group(1))
    if source is None:
        return _refused(words["unknown"])
    if not _allowed(source):
        return _refused(words["limit"].format(count=MAILS_PER_DIALOG))
    service = bot_value(bot, "bot.servicename") or bot.name
    try:
        _send(source, email, service, words)
    except Exception:  # an SMTP server down or refusing: the visitor is told, the talk still answers
        log.exception("Transcript of dialog %s not sent", source.pk)
        return _refused(words["failed"])
    return Reply(text=words["sent"].format(email=shown), type_response=SENT)


def _refused(text: str) -> Reply:
    return Reply(text=text, type_response=REFUSED)


def _valid(email: str) -> bool:
    if len(email) > 254:
        return False
    try:
        validate_email(email)
    except ValidationError:
        return False
    return True


def _dialog(bot, current: Dialog, context_id: str) -> Dialog | None:
    """The dialog the input names: the talk's own, or another of this bot's (its id is its secret)."""
    parsed = parse_context_id(context_id)
    if parsed is None:
        return None
    if current.pk and current.uuid == parsed:
        return current
    return Dialog.objects.filter(bot=bot, uuid=parsed).first()


def _allowed(dialog: Dialog) -> bool:
    """Counts this mail against the dialog's allowance (shared by every worker through the cache)."""
    return cache.hit(f"dialogs:mailto:{dialog.uuid}", WINDOW_SECONDS) <= MAILS_PER_DIALOG


def _send(dialog: Dialog, email: str, service: str, words: dict) -> None:
    transcript = lines(dialog, DEFAULT_USER_LABEL, service or DEFAULT_BOT_LABEL)
    intro = words["intro"].format(service=service)
    plain = [intro, ""] + [
        f"{line.at:%H:%M} {line.author} : {line.text or html.unescape(strip_tags(line.html))}".strip()
        for line in transcript
    ]
    # The printable transcript's page: visitor text escaped, answers through its HTML allowlist.
    page = render_to_string(
        "dialogs/transcript.html",
        {
            "dialog": dialog,
            "bot_name": service,
            "lines": transcript,
            "user_label": DEFAULT_USER_LABEL,
            "bot_label": service or DEFAULT_BOT_LABEL,
            "printed_at": timezone.localtime(),
        },
    )
    message = EmailMultiAlternatives(
        subject=words["subject"].format(service=service)[:200],
        body="\n".join(plain),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[email],
    )
    message.attach_alternative(page, "text/html")
    message.send()
