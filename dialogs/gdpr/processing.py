"""The three ways to answer a GDPR request — send the data, erase it, ignore the request (with an internal
reason; the visitor is not told) — each logged as a GdprAction and on the `dialogs.gdpr` logger. A mail is
said sent only when a mail server took it: a development backend only writes it (dialogs/mail_delivery.py)."""

import logging

from django.apps import apps
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from ..mail_delivery import not_sent
from ..models import GdprRequest
from . import data, erase, mail
from .models import GdprAction

log = logging.getLogger("dialogs.gdpr")


class Refused(ValueError):
    """The action cannot be done on this request; the message says why, nothing was changed."""


class NotSent(Refused):
    """The data was only written by a development mail backend: the request stays pending."""


def send_data(request: GdprRequest, user) -> GdprAction:
    """E-mail the visitor their data; a mail server that fails leaves the request pending (logged)."""
    _check_pending(request)
    if request.object != GdprRequest.Object.GET:
        raise Refused(_("This visitor asked for their data to be deleted, not sent."))
    if not request.mail:
        raise Refused(_("This request has no e-mail address to send the data to: ignore it with a reason."))
    try:
        export, counts = data.export(request, mail.service_name(request))
    except data.NoVisitor as error:
        raise Refused(str(error)) from None
    try:
        mail.send_data(request, export, counts)
    except Exception as error:  # an SMTP server down or refusing: said on the page, kept in the log
        log.exception("GDPR request %s: the data could not be sent", request.pk)
        _record(request, user, GdprAction.Kind.FAILED, f"{type(error).__name__}: {error}"[:500], counts)
        raise Refused(_("The e-mail could not be sent (%(error)s); the request stays pending.") % {"error": error})
    unsent = not_sent(request.mail)
    if unsent:
        log.warning("GDPR request %s: %s", request.pk, unsent)
        _record(request, user, GdprAction.Kind.FAILED, unsent, counts)
        pending = _("The request stays pending: configure a mail server (EMAIL_HOST), then send the data again.")
        raise NotSent(f"{unsent} {pending}")
    return _done(request, user, GdprRequest.Status.SENT, GdprAction.Kind.SENT, request.mail, counts)


def delete_data(request: GdprRequest, user) -> GdprAction:
    """Erase the visitor's data, then tell them by e-mail when the request has an address."""
    _check_pending(request)
    if request.object != GdprRequest.Object.DELETE:
        raise Refused(_("This visitor asked for their data, not for its deletion."))
    try:
        with transaction.atomic():
            counts = erase.erase(request)
            summary = by_name(counts)
            action = _done(request, user, GdprRequest.Status.DELETED, GdprAction.Kind.DELETED, "", summary)
    except data.NoVisitor as error:
        raise Refused(str(error)) from None
    # Whether the visitor was told (None: no address to tell), for the page's message.
    action.confirmed = None
    if request.mail:
        try:
            mail.send_erased(request, summary)
            action.note = not_sent(request.mail) or _("Confirmation sent to %(mail)s.") % {"mail": request.mail}
            action.confirmed = not not_sent(request.mail)
        except Exception as error:  # the data is gone all the same; the log says the mail failed
            log.exception("GDPR request %s: the deletion's confirmation could not be sent", request.pk)
            action.note = _("The confirmation e-mail could not be sent: %(error)s") % {"error": error}
            action.confirmed = False
        action.save(update_fields=["note"])
    return action


def ignore(request: GdprRequest, user, reason: str) -> GdprAction:
    _check_pending(request)
    reason = (reason or "").strip()
    if not reason:
        raise Refused(_("Give the internal reason before ignoring a request; nothing was changed."))
    request.reason = reason
    return _done(request, user, GdprRequest.Status.IGNORED, GdprAction.Kind.IGNORED, reason, {})


# Kinds whose model's plural name reads badly in the log.
NAMES = {"livechat.ChatUpload": _lazy("files sent by the visitor")}


def by_name(counts) -> dict:
    """Deleted rows per kind, named as people read them (dialogs, interactions, files sent by the visitor…)."""
    named = {}
    for label, count in counts.items():
        name = str(NAMES.get(label) or apps.get_model(label)._meta.verbose_name_plural)
        named[name] = named.get(name, 0) + count
    return named


def _check_pending(request: GdprRequest) -> None:
    if request.status != GdprRequest.Status.PENDING:
        raise Refused(_("This request was already processed (%(status)s).") % {"status": request.get_status_display()})


def _done(request, user, status, kind, note, counts) -> GdprAction:
    with transaction.atomic():
        # Only a pending request moves on: two people acting at once cannot both process it.
        updated = GdprRequest.objects.filter(pk=request.pk, status=GdprRequest.Status.PENDING).update(
            status=status, reason=request.reason
        )
        if not updated:
            raise Refused(_("This request was processed by someone else meanwhile."))
        request.status = status
        return _record(request, user, kind, note, counts)


def _record(request, user, kind, note, counts) -> GdprAction:
    action = GdprAction.objects.create(
        request=request,
        kind=kind,
        user=user,
        user_name=user.get_username() if user is not None else "",
        at=timezone.now(),
        note=note,
        counts=dict(counts),
    )
    log.info(
        "GDPR request %s (%s, bot %s): %s by %s %s",
        request.pk,
        request.object,
        request.bot_id,
        kind,
        action.user_name or "-",
        dict(counts) or "",
    )
    return action
