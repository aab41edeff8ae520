"""The visitor's side of live chat, plugged into the talk pipeline (dialogs.handover): escalating a
dialog to an operator or the queue, relaying what the visitor writes, leaving the queue."""

from django.db import IntegrityError, transaction

from dialogs.handover import Code, Reply
from dialogs.models import Dialog
from knowledge.models import GlobalSentence

from . import assignment, delivery, hours, locking, missed, panel, queue, visitors, watching
from .assignment import sentence
from .layer_health import health
from .models import LivechatRequest
from .names import shown_name
from .notices import OPERATOR_NAME

K = GlobalSentence.Kind
R = LivechatRequest.Status
NOBODY = LivechatRequest.EndReason.NOBODY_AVAILABLE
# The chatbox's transports while in live chat (the REST talk's `mode`, client-contract.md §6.1 (13)).
LIVE_MODES = {"polling", "websocket"}


class LivechatHandover:
    def escalate(self, dialog: Dialog, request, reply: Reply, now) -> Reply:
        settings = queue.settings_for(dialog.bot)
        if not settings.enabled:
            return reply
        if reply.escalate == "too_many_misunderstood" and not settings.handover_on_too_many_misunderstood:
            return reply
        account_id = dialog.bot.account_id
        intro = reply.text if reply.escalate == "answer" else ""
        server_url = request.server_url
        if account_id is None:
            return _no_operator(dialog, reply, now, server_url=server_url)
        competency_name = request.competency or reply.competency
        competency = queue.find_competency(account_id, competency_name)
        if competency_name and competency is None:
            # A competency the account does not have: nobody can serve.
            return _no_operator(dialog, reply, now, server_url=server_url)
        if not health.usable():
            # Consoles hear of new visitors through the channel layer: while it is down no operator
            # would see this one, and the queue would only make the visitor wait for nobody.
            return _no_operator(dialog, reply, now, competency=competency, server_url=server_url)
        if not hours.open_now(account_id, competency, now):
            # Operators online after hours take no new visitors (they finish with those they have).
            reason = LivechatRequest.EndReason.OUTSIDE_HOURS
            return _no_operator(dialog, reply, now, reason=reason, competency=competency, server_url=server_url)

        try:
            with transaction.atomic():
                return self._hand_over(dialog, reply, intro, account_id, competency, settings, now, server_url)
        except IntegrityError:
            # Another talk of this dialog handed it over a moment ago (one open request per dialog):
            # this one's claims are rolled back, and the dialog is live already.
            return reply

    def _hand_over(self, dialog, reply, intro, account_id, competency, settings, now, server_url) -> Reply:
        # Held to the talk's commit: the room seen is the room taken, the place given is the next one.
        locking.hold_account(account_id)
        operator = queue.claim_operator(account_id, competency, now)
        if operator is not None:
            live = assignment.open_request(dialog, account_id, competency, now)
            assignment.assign(live, operator, now, from_queue=False)
            name = shown_name(operator, dialog)
            text = _join(intro, sentence(dialog, K.LIVECHAT_CONNECTED, operator=name))
            extra = {"specialAction": Code.START_POLLING, OPERATOR_NAME: name}
            return _live_reply(reply, text, Code.CONNECTION_SUCCEED, extra)

        if not (
            queue.anyone_can_serve(account_id, competency, now)
            and queue.queue_room(account_id, settings.queue_per_operator, competency, now)
        ):
            return _no_operator(dialog, reply, now, competency=competency, server_url=server_url)
        place = assignment.join_queue(dialog, account_id, competency, now).queue_position
        wait = queue.wait_estimator(account_id, now)(place)
        values = assignment.queue_values(dialog, place, wait)
        text = _join(intro, values.pop("text"))
        del values["code"]
        assignment.announce_queue(account_id, now)  # the consoles see the new visitor waiting
        return _live_reply(reply, text, Code.WAITING_FOR_OPERATOR, values)

    def relay(self, dialog: Dialog, interaction, request, now) -> Reply:
        live = assignment.open_request_of(dialog, lock=True)
        if live is None:
            # The dialog's mark outlived its request (it ended meanwhile): the bot has it back.
            assignment.set_dialog_livechat(dialog, Dialog.Livechat.BOT)
            return Reply(text="", type_response=Code.VISITOR_MESSAGE, relayed=True)
        visitors.seen(dialog.uuid, now)  # writing is being there
        if live.waiting_on != LivechatRequest.Waiting.OPERATOR or live.warned_at is not None:
            live.waiting_on = LivechatRequest.Waiting.OPERATOR
            live.waiting_since = now
            live.warned_at = None
            live.save(update_fields=["waiting_on", "waiting_since", "warned_at"])
        message = {"type": "message", "dialog": live.pk, "message": panel.message(interaction)}
        if live.status == R.ASSIGNED:
            delivery.to_operator(live.operator_id, message)
        else:
            delivery.to_account(live.account_id, message)
        if request.mode in LIVE_MODES:
            return Reply(text="", type_response=Code.VISITOR_MESSAGE, relayed=True)
        # A chatbox that does not know it is in live chat (it lost its state) is told so again.
        if live.status == R.ASSIGNED:
            name = shown_name(live.operator, dialog)
            text = sentence(dialog, K.LIVECHAT_CONNECTED, operator=name)
            extra = {"specialAction": Code.START_POLLING, "startLivechat": True, OPERATOR_NAME: name}
            return Reply(text=text, type_response=Code.CONNECTION_SUCCEED, payload=extra, relayed=True)
        place = queue.position(live)
        values = assignment.queue_values(dialog, place, queue.wait_estimator(live.account_id)(place))
        values.pop("code")
        text = values.pop("text")
        return Reply(text=text, type_response=Code.WAITING_FOR_OPERATOR, payload=values, relayed=True)

    def leave_queue(self, dialog: Dialog, request, now) -> Reply:
        text = sentence(dialog, K.LIVECHAT_LEFT_QUEUE)
        live = assignment.held_request_of(dialog)
        if live is not None:
            assignment.end(
                live,
                LivechatRequest.EndReason.VISITOR_LEFT_QUEUE,
                now,
                type_response=Code.LEAVE_QUEUE,
                kind=K.LIVECHAT_LEFT_QUEUE,
                code=Code.LEAVE_WAITING_QUEUE,
            )
        # The event above reaches the chatbox's sockets: over a websocket no talk answer is sent too.
        return Reply(
            text=text,
            type_response=Code.LEAVE_QUEUE,
            payload={"specialAction": Code.LEAVE_WAITING_QUEUE},
            pushed=live is not None,
        )

    def talked(self, dialog: Dialog, interaction) -> None:
        watching.talked(dialog, interaction)

    def close(self, dialog: Dialog, now) -> None:
        with transaction.atomic():
            live = assignment.held_request_of(dialog)
            if live is not None:
                assignment.end(
                    live,
                    LivechatRequest.EndReason.NEW_DIALOG,
                    now,
                    type_response=Code.AUTO_CLOSE_USER_LEFT,
                    kind=K.LIVECHAT_AUTO_CLOSE,
                )


def _join(*parts: str) -> str:
    return "<br>".join(part for part in parts if part)


def _live_reply(reply: Reply, text: str, type_response: str, extra: dict) -> Reply:
    payload = {**reply.payload, **extra, "startLivechat": True}
    return Reply(
        text=text,
        type_response=type_response,
        knowledge_id=reply.knowledge_id,
        payload=payload,
    )


def _no_operator(dialog: Dialog, reply: Reply, now, *, reason=NOBODY, competency=None, server_url="") -> Reply:
    """Nobody can take the dialog: the bot says so and keeps it; the missed request is counted (missed.py)."""
    return missed.no_operator(dialog, reply, now, reason=reason, competency=competency, server_url=server_url)


def visitor_typing(dialog: Dialog, typing: bool, content: str, now) -> None:
    """The visitor is typing (REST chat/typing or a websocket frame): kept on the dialog and shown live
    to the operator who holds it."""
    content = content[:600] if typing else ""
    Dialog.objects.filter(pk=dialog.pk).update(user_typing=typing, typing_content=content, typing_at=now)
    if dialog.livechat != Dialog.Livechat.OPERATOR:
        return
    live = assignment.open_request_of(dialog)
    if live is not None and live.operator_id:
        message = {"type": "typing", "dialog": live.pk, "typing": typing, "content": content}
        delivery.send(delivery.operator_group(live.operator_id), {"type": "console.push", "message": message})


def visitor_reading(dialog: Dialog, now) -> None:
    """The visitor has read the operator's messages: the operator's console shows it."""
    if dialog.livechat != Dialog.Livechat.OPERATOR:
        return
    live = assignment.open_request_of(dialog)
    if live is not None and live.operator_id:
        message = {"type": "read", "dialog": live.pk, "at": now.isoformat()}
        delivery.send(delivery.operator_group(live.operator_id), {"type": "console.push", "message": message})
