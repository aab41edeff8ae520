"""A visitor asked for a human and nobody could take them (nobody available or with room, outside opening
hours, live chat unreachable): the request is recorded, ended at once, so that analytics count the missed
demand; the answer says so (the bot's 'no operator available' sentence), gives the opening hours that
apply and offers to be called back: a link to the callback page, which CV5 shows as any link in an answer,
and a `callback` field our chatbox turns into its own form (client contract: README, "Nobody there")."""

import html
from urllib.parse import urlencode

from django.core import signing
from django.urls import reverse

from dialogs.handover import Reply
from dialogs.models import Dialog
from knowledge.models import GlobalSentence

from . import hours, queue
from .assignment import sentence
from .models import LivechatRequest

R = LivechatRequest.Status
# The callback page's link names its dialog by a signed id (not the context id, which opens the dialog).
SIGNING_SALT = "livechat.callback"
LINK_DAYS = 7
WORDS = {
    "fr": {"callback": "Être rappelé par un conseiller"},
    "en": {"callback": "Ask an advisor to call you back"},
}


def no_operator(dialog: Dialog, reply: Reply, now, *, reason: str, competency=None, server_url: str = "") -> Reply:
    """The bot keeps the dialog: its 'no operator available' sentence, the hours, the callback offer."""
    account_id = dialog.bot.account_id
    if account_id is not None:
        record(dialog, account_id, competency, reason, now)
    parts = [sentence(dialog, GlobalSentence.Kind.LIVECHAT_NO_OPERATOR)]
    schedule = hours.schedule_for(account_id, competency) if account_id is not None else None
    if schedule is not None:
        parts.append(html.escape(hours.describe(schedule, dialog.language, now)))
    payload = {**reply.payload, "livechat": "no_operator"}
    if account_id is not None and queue.settings_for(dialog.bot).offer_callback:
        offer = callback_offer(dialog, server_url)
        payload["callback"] = offer
        if offer["url"]:
            parts.append(
                f'<a href="{html.escape(offer["url"])}" target="_blank" rel="noopener" '
                f'class="dydu-callback-link">{html.escape(offer["label"])}</a>'
            )
    return Reply(
        text="<br>".join(parts),
        type_response=reply.type_response,
        knowledge_id=reply.knowledge_id,
        ask_feedback=reply.ask_feedback,
        payload=payload,
    )


def record(dialog: Dialog, account_id: int, competency, reason: str, now) -> LivechatRequest:
    return LivechatRequest.objects.create(
        dialog=dialog,
        bot_id=dialog.bot_id,
        account_id=account_id,
        competency=competency,
        status=R.ENDED,
        created_at=now,
        queued_at=now,
        ended_at=now,
        end_reason=reason,
        waiting_since=now,
        last_event_ms=0,
    )


def callback_offer(dialog: Dialog, server_url: str) -> dict:
    """What a chatbox needs to offer the callback: the words of its button or link, and the callback page's
    address on this server (empty when the transport did not say which address the chatbox uses)."""
    words = WORDS.get(dialog.language, WORDS["en"])
    url = ""
    if server_url:
        token = signing.dumps(dialog.pk, salt=SIGNING_SALT)
        path = reverse("livechat-callback", args=[dialog.bot.uuid])
        url = f"{server_url.rstrip('/')}{path}?{urlencode({'lang': dialog.language or 'en', 'd': token})}"
    return {"label": words["callback"], "url": url}


def dialog_of_link(token: str, bot):
    """The dialog a callback page's link names, if its signature holds and it is recent; else None."""
    try:
        pk = signing.loads(token, salt=SIGNING_SALT, max_age=LINK_DAYS * 24 * 3600)
    except signing.BadSignature:
        return None
    return Dialog.objects.filter(pk=pk, bot=bot).first() if isinstance(pk, int) else None
