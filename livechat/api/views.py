"""Live chat's servlet calls: the chatbox's side of the Chat group (poll, typing, reading, queue
status, the old servlet's chatHttp) and the Operators availability and Callback groups.

Each call's schema names its fields and every answer it gives, errors included (bots/servlet/schema.py)."""

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers

from accounts.lockout import client_address
from accounts.models import Membership
from accounts.permissions import account_of, authenticate_if_present, authenticate_request, check_allowed
from accounts.servlet import ProtectedView
from bots.servlet.envelope import b64_decode, plain_json
from bots.servlet.errors import Forbidden, InvalidField, MissingField, NotFound
from bots.servlet.params import parse_json
from bots.servlet.schema import (
    BOOLEAN,
    CHAT_ERRORS,
    EMPTY_OBJECT,
    INTEGER,
    OBJECT,
    PROTECTED_RESOURCE_ERRORS,
    chat_call,
    envelope_schema,
    plain_schema,
    responses,
)
from bots.servlet.views import get_bot
from dialogs import contexts
from dialogs.api.views import ChatView
from dialogs.models import Dialog

from .. import callbacks, frames, polling, presence, queue, supervisors, visitors
from ..handover import visitor_reading, visitor_typing
from ..models import LivechatRequest, Operator
from ..names import clean_display_name, set_display_name

CHAT = ["Chat"]
RECEIVED = {200: plain_schema(EMPTY_OBJECT)}
# A live-chat event as the chatbox reads it: {"type", "values"} (values' strings in base64), or {} if none.
EVENT = {
    "type": "object",
    "properties": {"type": {"type": "string"}, "values": OBJECT},
    "description": "{} when nothing is new; else the event's chat envelope (strings of values in base64).",
}
CARD = plain_schema(OBJECT, "The operator's card: status, dialogs held and room, competencies.")
OPERATOR_ERRORS = (*PROTECTED_RESOURCE_ERRORS, 409)
# What the API console shows of each call's form (the chatbox sends these fields form-encoded).
POLL = inline_serializer(
    "LivechatPoll",
    {
        "contextUuid": serializers.CharField(),
        "lastPoll": serializers.IntegerField(help_text="pollUpdatedInteractionDate of the last event shown (ms)"),
        "solutionUsed": serializers.CharField(required=False, default="LIVECHAT"),
        "format": serializers.CharField(required=False, default="JSon"),
        "language": serializers.CharField(required=False),
        "space": serializers.CharField(required=False),
    },
)
TYPING = inline_serializer(
    "VisitorTyping",
    {
        "contextId": serializers.CharField(),
        "typing": serializers.BooleanField(required=False, default=True),
        "content": serializers.CharField(required=False, help_text="base64 of the text being typed"),
    },
)
READING = inline_serializer(
    "VisitorReading", {"contextId": serializers.CharField(), "reading": serializers.BooleanField()}
)
CHAT_HTTP = inline_serializer(
    "ChatHttpFrame", {"data": serializers.CharField(help_text='{"type": …, "parameters": {…base64 strings…}}')}
)
AVAILABILITY_CHANGE = inline_serializer(
    "OperatorAvailabilityChange",
    {
        "status": serializers.ChoiceField(["available", "busy", "away", "offline"], required=False),
        "maxDialogs": serializers.IntegerField(required=False, min_value=1, max_value=10),
        "supervisor": serializers.BooleanField(required=False),
        "displayName": serializers.CharField(
            required=False, allow_blank=True, help_text="The name visitors see (empty: the first name)"
        ),
    },
)
CALLBACK_REQUEST = inline_serializer(
    "CallbackRequest",
    {
        "phone": serializers.CharField(),
        "name": serializers.CharField(required=False),
        "preferredTime": serializers.CharField(required=False),
        "reason": serializers.CharField(required=False),
        "contextId": serializers.CharField(required=False),
        "language": serializers.CharField(required=False),
    },
)
CALLBACK_OUTCOME = inline_serializer("CallbackOutcome", {"outcome": serializers.CharField(required=False)})
CONTEXT_FORM = inline_serializer(
    "LivechatContextForm", {"contextId": serializers.CharField(required=False, help_text="Also contextUuid, ctx.")}
)


@chat_call(
    "Live chat over REST: the next operator message or notification after lastPoll",
    form=POLL,
    ok={200: plain_schema(EVENT)},
)
class PollView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        dialog = self.context_dialog(request, bot)
        last_poll = params.integer("lastPoll", "lastpoll", default=0, minimum=0)
        # A chatbox polls only in live chat: its visitor is there (and is queued again if dropped meanwhile).
        visitors.here(dialog, last_poll_ms=last_poll)
        event = polling.next_event(dialog, last_poll)
        if event is None:
            return plain_json({})
        return self.envelope(event.frame_type, event.values)


@chat_call("The visitor is typing (live chat): the operator sees it", form=TYPING, ok=RECEIVED)
class TypingView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        dialog = self.context_dialog(request, bot)
        content = b64_decode(params.text("content", max_length=2000))[:600]
        typing = params.boolean("typing", default=True) and bool(content)
        visitor_typing(dialog, typing, content, timezone.now())
        return plain_json({})


@chat_call("The visitor read the operator's messages (live chat)", form=READING, ok=RECEIVED)
class ReadingView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        self.params(request).boolean("reading", default=True)
        dialog = self.context_dialog(request, bot, required=False)
        if dialog is not None:
            visitor_reading(dialog, timezone.now())
        return plain_json({})


@chat_call(
    "Is this dialog waiting in the live-chat queue? (place and estimated wait)",
    form=CONTEXT_FORM,
    ok={
        200: envelope_schema(
            "waitingQueueStatusResponse",
            {"waitingQueueStatusResponse": BOOLEAN, "queuePosition": INTEGER, "estimatedWaitingDuration": INTEGER},
            required=("waitingQueueStatusResponse",),
        )
    },
)
class ChatStatusView(ChatView):
    def post(self, request, bot_uuid, context_id=None):
        bot = get_bot(bot_uuid)
        dialog = self.context_dialog(request, bot, required=False, context_id=context_id)
        values = {"waitingQueueStatusResponse": False}
        if dialog is not None and dialog.livechat == Dialog.Livechat.QUEUED:
            live = LivechatRequest.objects.filter(dialog=dialog, status=LivechatRequest.Status.QUEUED).first()
            if live is not None:
                place = queue.position(live)
                values.update(
                    waitingQueueStatusResponse=True,
                    queuePosition=place,
                    estimatedWaitingDuration=queue.wait_estimator(live.account_id)(place),
                )
        return self.envelope("waitingQueueStatusResponse", values)


@chat_call(
    'The old servlet\'s chat call: one chatbox frame as ?data={"type":…,"parameters":{…}}',
    form=CHAT_HTTP,
    ok={(200, "application/json"): plain_schema(EVENT, "The first frame the chatbox's socket would get, or {}.")},
)
class ChatHttpView(ChatView):
    def post(self, request):
        # Read by the rules of every other field: depth bounded, no NUL or lone surrogate in its strings.
        frame = parse_json("data", self.params(request).text("data", required=True))
        if not isinstance(frame, dict):
            raise InvalidField("data", "not a JSON object")
        outcome = frames.handle(frame, "polling", client_address(request), request.build_absolute_uri("/").rstrip("/"))
        body = outcome.frames[0] if outcome.frames else "{}"
        return HttpResponse(body, content_type="application/json")


# ---------------------------------------------------------------------------- Operators availability

AVAILABILITY = ["Operators availability"]


def _operators_of(user):
    """The caller's account and its operators; only operators and administrators may read them."""
    check_allowed(user, "livechat.operate")
    account = account_of(user)
    if account is None:
        raise Forbidden("Your user belongs to no account.", code="NO_ACCOUNT")
    return account, Operator.objects.filter(account=account).select_related("user").prefetch_related("competencies")


@extend_schema(
    tags=AVAILABILITY,
    summary="The account's operators: availability, dialogs held, competencies (filter: competency, available)",
    parameters=[
        OpenApiParameter("competency", str, description="Only the operators who have it."),
        OpenApiParameter("available", bool, description="Only the available ones."),
    ],
    responses=responses(
        {200: plain_schema({"type": "object", "properties": {"operators": {"type": "array"}, "byCompetency": OBJECT}})},
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class OperatorsAvailabilityView(ProtectedView):
    def get(self, request):
        user = authenticate_request(request)
        account, operators = _operators_of(user)
        params = self.params(request)
        now = timezone.now()
        competency_name = params.text("competency", max_length=100)
        if competency_name:
            competency = queue.find_competency(account.pk, competency_name)
            if competency is None:
                raise NotFound(f"Your account has no competency '{competency_name}'.", code="UNKNOWN_COMPETENCY")
            operators = operators.filter(competencies=competency)
        cards = [presence.card(operator, now) for operator in operators]
        if params.boolean("available"):
            cards = [card for card in cards if card["status"] == Operator.Status.AVAILABLE]
        return plain_json({"operators": cards, "byCompetency": presence.by_competency(account.pk, now)})


@extend_schema(
    tags=AVAILABILITY,
    summary="One operator's availability; PUT/POST `status` (available, busy, away, offline) to change it, "
    "or `maxDialogs` (1 to 10, administrators), or `supervisor` (true or false: the live-chat supervisor right, "
    "administrators), or `displayName` (the name visitors see; one's own, or anyone's for administrators)",
    request=AVAILABILITY_CHANGE,
    responses=responses({200: CARD}, *PROTECTED_RESOURCE_ERRORS),
)
class OperatorAvailabilityView(ProtectedView):
    def get(self, request, login):
        user = authenticate_request(request)
        _, operators = _operators_of(user)
        target = self._find(operators, login, user)
        return plain_json(supervisors.with_right(target, presence.card(target, timezone.now())))

    def put(self, request, login):
        user = authenticate_request(request)
        account, operators = _operators_of(user)
        params = self.params(request)
        status = params.text("status", "availability").strip().lower()
        max_dialogs = params.integer("maxDialogs", "max_dialogs", minimum=1)
        # The supervisor right (supervisors.py): given or taken back only when the field is there.
        supervisor = None if params.raw("supervisor") in (None, "") else params.boolean("supervisor")
        # The name visitors see (names.py): set when the field is there, "" going back to the first name.
        display_name = params.raw("displayName")
        if not status and max_dialogs is None and supervisor is None and display_name is None:
            raise MissingField("status")
        if display_name is not None:
            display_name = clean_display_name(display_name)
        target = self._find(operators, login, user)
        if target.user_id != user.pk or max_dialogs is not None or supervisor is not None:
            # Others' availability, and anyone's number of simultaneous dialogs, are the supervisor's.
            check_allowed(user, "livechat.supervise", account=account)
        if display_name is not None:
            set_display_name(target, display_name)
        if supervisor is not None:
            supervisors.set_right(target, supervisor)
        if max_dialogs is not None:
            presence.set_max_dialogs(target, max_dialogs)
        if status:
            presence.set_status(target, status)
        return plain_json(supervisors.with_right(target, presence.card(target, timezone.now())))

    def post(self, request, login):
        return self.put(request, login)

    def _find(self, operators, login, user) -> Operator:
        found = operators.filter(user__username__iexact=login).first()
        if found is not None:
            return found
        # A member who may operate but never opened the console gets their profile now.
        member = Membership.objects.filter(account=account_of(user), user__username__iexact=login).first()
        if member is None or not presence.may_operate(member.user):
            raise NotFound(f"No operator '{login[:150]}' in your account.", code="UNKNOWN_OPERATOR")
        return presence.operator_for(member.user)


@chat_call(
    "Can this bot's visitors reach a human now? (anyone may ask: no personal data)",
    ok={
        200: plain_schema(
            {
                "type": "object",
                "properties": {
                    "available": BOOLEAN,
                    "enabled": BOOLEAN,
                    "open": BOOLEAN,
                    "byCompetency": OBJECT,
                    "queue": INTEGER,
                },
            }
        )
    },
    errors=CHAT_ERRORS,
    tags=("Operators availability",),
)
class BotAvailabilityView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        return plain_json(presence.bot_availability(bot, timezone.now()))


# ---------------------------------------------------------------------------- Callback

CALLBACK = ["Callback"]


@extend_schema_view(
    post=extend_schema(
        tags=CALLBACK,
        summary="Ask to be called back (phone, name, preferredTime, reason, contextId): a visitor, or a "
        "telephony integration with a token",
        request=CALLBACK_REQUEST,
        responses=responses({201: plain_schema(OBJECT, "The callback request, stored.")}, *PROTECTED_RESOURCE_ERRORS),
    ),
    get=extend_schema(
        tags=CALLBACK,
        summary="The bot's callbacks still to handle (operators)",
        parameters=[OpenApiParameter("status", str, description="open, taken or closed (default: not closed).")],
        responses=responses(
            {200: plain_schema({"type": "array", "items": OBJECT}, "The callbacks, oldest first.")},
            *PROTECTED_RESOURCE_ERRORS,
        ),
    ),
)
class CallbacksView(ProtectedView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        caller = authenticate_if_present(request)
        if caller is not None:
            check_allowed(caller, "livechat.operate", bot=bot)
        phone = callbacks.clean_phone(params.text("phone", "phoneNumber", max_length=100))
        if caller is None:
            callbacks.limit_anonymous(request, bot)
        dialog = contexts.known_dialog(bot, params.text("contextId", "contextUuid", "contextUUID", "ctx"))
        callback = callbacks.request_callback(
            bot,
            phone=phone,
            name=params.text("name", max_length=200),
            preferred_time=params.text("preferredTime", "time", max_length=200),
            reason=params.text("reason", max_length=4000),
            language=params.text("language", max_length=8),
            source="telephony" if caller is not None else "chatbox",
            dialog=dialog,
        )
        return plain_json(callbacks.summary(callback), status=201)

    def get(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        user = authenticate_request(request)
        check_allowed(user, "livechat.operate", bot=bot)
        status = self.params(request).text("status", max_length=10)
        return plain_json(callbacks.listing(bot.account_id, status or None, bot=bot))


@extend_schema(
    tags=CALLBACK,
    summary="Take a callback (you will call) or close it (with an `outcome`)",
    request=CALLBACK_OUTCOME,
    parameters=[OpenApiParameter("action", str, OpenApiParameter.PATH, enum=["take", "close"])],
    responses=responses({200: plain_schema(OBJECT, "The callback.")}, *OPERATOR_ERRORS),
)
class CallbackActionView(ProtectedView):
    def post(self, request, bot_uuid, callback_id, action):
        bot = get_bot(bot_uuid)
        user = authenticate_request(request)
        check_allowed(user, "livechat.operate", bot=bot)
        operator = presence.operator_for(user)
        outcome = self.params(request).text("outcome", max_length=4000)
        return plain_json(callbacks.act(operator, callback_id, action, outcome, bot=bot))


# ---------------------------------------------------------------------------- Competencies of operators

COMPETENCIES = ["Competencies"]


def _competency_of(request, user, name: str):
    account = account_of(user)
    if account is None:
        raise Forbidden("Your user belongs to no account.", code="NO_ACCOUNT")
    competency = queue.find_competency(account.pk, name)
    if competency is None:
        raise NotFound(f"Your account has no competency '{name[:100]}'.", code="UNKNOWN_COMPETENCY")
    return account, competency


@extend_schema(
    tags=COMPETENCIES,
    summary="The operators who have this competency (live-chat routing)",
    responses=responses(
        {
            200: plain_schema(
                {"type": "object", "properties": {"competency": {"type": "string"}, "operators": {"type": "array"}}}
            )
        },
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class CompetencyOperatorsView(ProtectedView):
    def get(self, request, name):
        user = authenticate_request(request)
        check_allowed(user, "account.read")
        _, competency = _competency_of(request, user, name)
        operators = competency.operators.select_related("user").order_by("user__username")
        return plain_json({"competency": competency.name, "operators": [op.user.get_username() for op in operators]})


@extend_schema(
    tags=COMPETENCIES,
    summary="Give (PUT) or take back (DELETE) a competency from a back-office user who answers visitors",
    request=None,
    responses=responses({200: CARD}, *PROTECTED_RESOURCE_ERRORS),
)
class CompetencyOperatorView(ProtectedView):
    def put(self, request, name, login):
        operator, competency = self._find(request, name, login)
        operator.competencies.add(competency)
        queue.announce_operator(operator.pk)
        return plain_json(presence.card(operator, timezone.now()))

    def delete(self, request, name, login):
        operator, competency = self._find(request, name, login)
        operator.competencies.remove(competency)
        queue.announce_operator(operator.pk)
        return plain_json(presence.card(operator, timezone.now()))

    def _find(self, request, name, login):
        user = authenticate_request(request)
        account, competency = _competency_of(request, user, name)
        check_allowed(user, "competencies.edit", account=account)
        member = Membership.objects.filter(account=account, user__username__iexact=login).select_related("user").first()
        if member is None or not presence.may_operate(member.user):
            raise NotFound(f"No operator '{login[:150]}' in your account.", code="UNKNOWN_OPERATOR")
        return presence.operator_for(member.user), competency
