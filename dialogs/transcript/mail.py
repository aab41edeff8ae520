"""A dialog's transcript as an e-mail (#dydumailto#, dialogs/mailto.py): the exchanges the visitor saw and
nothing else a visitor wrote. The visitor's words are text in both parts, with their web and mail
addresses defanged (example[.]org, https[:]//) so that no mail client makes them links; the bot's answers
go through the transcript's HTML allowlist (staff wrote them)."""

import re
from dataclasses import replace

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import timezone, translation

from dialogs.models import Dialog, Interaction
from knowledge.plain_text import answer_text

from .page import DEFAULT_BOT_LABEL, DEFAULT_USER_LABEL, Line, lines, visitor_language

DOT = r"[.\u3002\uff0e\uff61]"  # browsers read the ideographic and full-width full stops in a host as dots
SCHEME = re.compile(r"\b([a-z][a-z0-9+.-]*):(?=//)", re.IGNORECASE)
HOST = re.compile(rf"(?:[\w-]+{DOT})+[^\W\d_]{{2,}}\b|\b\d{{1,3}}(?:{DOT}\d{{1,3}}){{3}}\b")


def defanged(text: str) -> str:
    """The visitor's text with every URL scheme and host name broken for autolinkers, still readable."""
    text = SCHEME.sub(r"\1[:]", text)
    return HOST.sub(lambda match: re.sub(DOT, lambda dot: f"[{dot.group(0)}]", match.group(0)), text)


def message(dialog: Dialog, email: str, service: str, words: dict) -> EmailMultiAlternatives:
    """The mail to `email`: subject and introduction from the bot's service name, then the transcript, whose
    labels speak the dialog's language (the visitor's copy)."""
    with translation.override(visitor_language(dialog)):
        transcript = [_visitor_defanged(line) for line in _exchanges(dialog, service or DEFAULT_BOT_LABEL)]
        intro = words["intro"].format(service=service)
        plain = [intro, ""] + [f"{line.at:%H:%M} {line.author} : {_plain(line)}".strip() for line in transcript]
        # The printable transcript's page: visitor text escaped by the template, answers through its allowlist.
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
    mail = EmailMultiAlternatives(
        subject=words["subject"].format(service=service)[:200],
        body="\n".join(plain),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[email],
    )
    mail.attach_alternative(page, "text/html")
    return mail


def _exchanges(dialog: Dialog, bot_label: str) -> list[Line]:
    """The dialog as the chatbox showed it, without the exports: their commands and answers repeat
    addresses the visitor typed, which would reach the recipient in the bot's words."""
    # Imported at the call: clicks imports mailto, which imports this module.
    from dialogs import clicks, mailto

    rows = (
        Interaction.objects.filter(dialog=dialog)
        .exclude(type_response__in=(mailto.SENT, mailto.REFUSED))
        .order_by("created_at", "id")
    )

    def hidden(row: Interaction) -> bool:
        return clicks.hidden_request(row.origin, row.user_input)

    return lines(dialog, DEFAULT_USER_LABEL, bot_label, rows=rows, hide_request=hidden)


def _visitor_defanged(line: Line) -> Line:
    if line.side != "visitor":
        return line
    file = {**line.file, "name": defanged(str(line.file.get("name", "")))} if line.file else None
    return replace(line, text=defanged(line.text), file=file)


def _plain(line: Line) -> str:
    if line.file:
        return f"[{line.file['name']}]"
    return line.text or answer_text(line.html)
