"""#dydumailto:{ctx}:{email}# (client-contract.md §2.2 (24)): the chatbox's "send me this conversation"
e-mails the dialog's transcript to that address within the allowances of transcript/mail_limits.py (per
dialog, client address, recipient and bot and day), and says so; a refusal says why, in the dialog's language."""

import html
import logging
import re

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from preferences.services import bot_value

from .contexts import parse_context_id
from .handover import Reply
from .models import Dialog
from .transcript import mail_limits
from .transcript.mail import message

log = logging.getLogger(__name__)

MAILTO = re.compile(r"^#dydumailto:([^:#]*):(.*)#$", re.DOTALL)
SENT = "DMExportByMail"
REFUSED = "DMExportByMailRefused"
# Refusals that are the visitor's mistake, logged at INFO; the limits' refusals are WARNING (abuse shows there).
INVALID, UNKNOWN = "invalid_address", "unknown_dialog"
# The mail server failed or refused the mail (logged with its error, one line: an SMTP outage is no storm).
FAILED = "failed"

WORDS = {
    "fr": {
        "sent": "La conversation a été envoyée à {email}.",
        "invalid_address": "« {email} » n'est pas une adresse e-mail valide : la conversation n'a pas été envoyée.",
        "unknown_dialog": "Je ne trouve pas cette conversation : elle n'a pas été envoyée.",
        "off": "L'envoi de la conversation par e-mail n'est pas proposé ici.",
        "dialog_limit": "Cette conversation a déjà été envoyée {count} fois : réessayez plus tard.",
        "client_limit": "Trop de conversations ont été envoyées par e-mail depuis votre connexion : "
        "réessayez dans une heure.",
        "recipient_limit": "Cette adresse a déjà reçu plusieurs conversations : réessayez dans une heure.",
        "bot_limit": "Plus aucune conversation ne peut être envoyée par e-mail aujourd'hui : réessayez demain.",
        "failed": "L'e-mail n'a pas pu partir. Réessayez plus tard.",
        "subject": "Votre conversation avec {service}",
        "intro": "Voici votre conversation avec {service}.",
    },
    "en": {
        "sent": "The conversation was sent to {email}.",
        "invalid_address": "“{email}” is not a valid e-mail address: the conversation was not sent.",
        "unknown_dialog": "I cannot find this conversation: it was not sent.",
        "off": "Sending the conversation by e-mail is not offered here.",
        "dialog_limit": "This conversation has already been sent {count} times: try again later.",
        "client_limit": "Too many conversations have been sent by e-mail from your connection: try again in an hour.",
        "recipient_limit": "This address has already received several conversations: try again in an hour.",
        "bot_limit": "No more conversations can be sent by e-mail today: try again tomorrow.",
        "failed": "The e-mail could not be sent. Try again later.",
        "subject": "Your conversation with {service}",
        "intro": "Here is your conversation with {service}.",
    },
}


def is_mailto(text: str) -> bool:
    return text.startswith("#dydumailto:")


def export(bot, dialog: Dialog, text: str, client_address: str = "") -> Reply:
    """Send the transcript the input names; the reply says what happened (nothing is sent on a refusal).
    `client_address` is the visitor's peer address, which has its own allowance (mail_limits)."""
    words = WORDS.get(dialog.language, WORDS["en"])
    cap = mail_limits.daily_cap(bot)
    if cap == 0:
        return _refused(words, mail_limits.OFF, bot, dialog.uuid, client_address)
    match = MAILTO.match(text)
    email = (match.group(2) if match else "").strip()
    if not match or not _valid(email):
        return _refused(words, INVALID, bot, dialog.uuid, client_address, shown=html.escape(email[:100]))
    source = _dialog(bot, dialog, match.group(1))
    if source is None:
        return _refused(words, UNKNOWN, bot, "-", client_address)
    reason = mail_limits.refusal(bot, source, client_address, email, cap)
    if reason is not None:
        return _refused(words, reason, bot, source.uuid, client_address, email=email)
    service = bot_value(bot, "bot.servicename") or bot.name
    try:
        message(source, email, service, words).send()
    except Exception as error:  # an SMTP server down or refusing: the visitor is told, the talk still answers
        detail = f"{type(error).__name__}: {error}"[:300]
        return _refused(words, FAILED, bot, source.uuid, client_address, email=email, error=detail)
    return Reply(text=words["sent"].format(email=html.escape(email[:100])), type_response=SENT)


def _refused(words: dict, reason: str, bot, dialog_id, client_address: str, email="", shown="", error="") -> Reply:
    """The visitor's answer, and one log line naming the reason (the recipient only by its digest)."""
    recipient = mail_limits.digest(mail_limits.recipient_key(email)) if email else "-"
    level = logging.INFO if reason in (INVALID, UNKNOWN, mail_limits.OFF) else logging.WARNING
    log.log(
        level,
        "Transcript mail refused (%s): bot %s, dialog %s, client %s, recipient %s%s",
        reason,
        bot.uuid,
        dialog_id,
        client_address or "-",
        recipient,
        f", {error}" if error else "",
    )
    text = words[reason].format(email=shown, count=mail_limits.MAILS_PER_DIALOG)
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
