"""The Chat servlet group (servlet-api.md §4 Chat, client-contract.md §2): thin views that read the
form, call the dialog services and answer in the envelope the chatbox decodes.

Each call's schema names its fields (form, JSON or multipart body on POST, the query string on GET; the
forms are in dialogs/api/schema.py) and every answer it gives, errors included (bots/servlet/schema.py)."""

import html
import json

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from accounts.lockout import client_address
from accounts.saml.guard import SamlGuard
from bots.servlet.envelope import envelope_body, json_string, plain_json, script
from bots.servlet.errors import InvalidField, MissingField, NotFound, ServletError
from bots.servlet.params import CONTEXT_ID
from bots.servlet.schema import (
    B64,
    BOOLEAN,
    EMPTY_OBJECT,
    INTEGER,
    OBJECT,
    SCRIPT,
    chat_call,
    envelope_schema,
    plain_schema,
)
from bots.servlet.views import ServletView, get_bot
from knowledge.models import KnowledgeItem
from knowledge.search import suggestions
from knowledge.snapshot import snapshot_for

from .. import contexts, feedback, statements
from ..clock import epoch_ms
from ..engine import open_dialog, talk
from ..history import history_values
from ..models import ClientError, Dialog, GdprRequest, Visit
from ..requests import talk_request_from_params
from ..topknowledge import top_knowledge_values
from .schema import (
    CLIENT_ERROR_FORM,
    COMMENT_FORM,
    CONTEXT_FORM,
    FEEDBACK_ANSWER,
    FEEDBACK_FORM,
    GDPR_FORM,
    HISTORY_FORM,
    NEW_CONTEXT_FORM,
    PREVIOUS_FORM,
    REASON_FORM,
    SEARCH_FORM,
    TALK_FORM,
    TALK_VALUES,
    TOP_FORM,
    VARIABLE_FORM,
    WELCOME_FORM,
)


class ChatView(SamlGuard, ServletView):
    """Chat calls answer GET and POST alike (servlet-api.md §1.5); on a bot with SAML on, only for a
    visitor logged in with SAML (accounts/saml/guard.py), whose token self.envelope hands back."""

    def get(self, request, *args, **kwargs):
        return self.post(request, *args, **kwargs)

    def context_dialog(self, request, bot, *, required: bool = True, context_id: str | None = None) -> Dialog | None:
        value = context_id or self.params(request).text(*CONTEXT_ID)
        if not value:
            if required:
                raise MissingField("contextUuid")
            return None
        dialog = contexts.known_dialog(bot, value)
        if dialog is None and required:
            raise NotFound(f"No dialog has the context id '{value[:64]}'.", code="UNKNOWN_CONTEXT")
        return dialog


@chat_call(
    "Talk: send the user's input, get the bot's answer (talkResponse)",
    form=TALK_FORM,
    ok={200: envelope_schema("talkResponse", TALK_VALUES, required=("contextId", "typeResponse", "text"))},
)
class TalkView(ChatView):
    def post(self, request, bot_uuid, context_id=None):
        try:
            wanted = talk_request_from_params(self.params(request), context_id, client_address(request))
            wanted.server_url = request.build_absolute_uri("/").rstrip("/")
        except ServletError:
            get_bot(bot_uuid)  # an unknown bot is named before a bad field, as on every chat call
            raise
        # A running dialog comes with its bot in one query; a new one needs the bot looked up.
        dialog = contexts.dialog_with_bot(bot_uuid, wanted.context_id)
        bot = dialog.bot if dialog is not None else get_bot(bot_uuid)
        answer = talk(bot, wanted, found=dialog)
        return self.envelope("talkResponse", answer.values(bot))


@chat_call("Store a user visit", form=WELCOME_FORM, ok={(200, "application/javascript"): SCRIPT})
class WelcomeCallView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        Visit.objects.create(
            bot=bot,
            context_id=params.text(*CONTEXT_ID, max_length=64),
            language=params.text("language", max_length=8),
            space=params.text("space", max_length=100),
            qualification_mode=params.boolean("qualificationMode"),
            variables=params.json_object("variables"),
        )
        return script("/*logged*/")


@chat_call(
    "Push rules of the bot's event-triggered knowledge",
    ok={
        200: plain_schema(
            {"type": "object", "properties": {"values": B64}},
            "{} without rules; else `values`: base64 of the JSON array of rules {kId, conditions}.",
        )
    },
)
class PushRulesView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        rules = [
            {"kId": item_id, "conditions": conditions}
            for item_id, conditions in KnowledgeItem.objects.filter(
                bot=bot, kind=KnowledgeItem.Kind.EVENT, status=KnowledgeItem.Status.PUBLISHED
            ).values_list("id", "event_rules")
            if conditions
        ]
        if not rules:
            return plain_json({})
        # The chatbox JSON.parses the decoded `values`, so the rules travel as one base64 JSON string.
        return plain_json(envelope_body(json_string(rules)))


@chat_call(
    "Is this context id still usable?",
    form=CONTEXT_FORM,
    ok={200: envelope_schema("availableContextResponse", {"isContextStillAvailable": BOOLEAN})},
)
class AvailableContextView(ChatView):
    def post(self, request, bot_uuid, context_id=None):
        bot = get_bot(bot_uuid)
        context_id = context_id or self.params(request).text(*CONTEXT_ID)
        available = contexts.active_dialog(bot, context_id) is not None
        return self.envelope("availableContextResponse", {"isContextStillAvailable": available})


@chat_call(
    "Dialog history (JSON values.interactions)",
    form=HISTORY_FORM,
    ok={
        200: envelope_schema(
            "historyResponse",
            {
                "interactions": {"type": "array", "items": OBJECT},
                "contextId": B64,
                "botUUID": B64,
                "serverTime": INTEGER,
            },
            required=("interactions",),
        )
    },
)
class HistoryView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        context_id = params.text(*CONTEXT_ID) or params.text("dialog")
        if not context_id:
            raise MissingField("contextUuid")
        dialog = contexts.active_dialog(bot, context_id)
        values = {
            "interactions": history_values(dialog),
            "contextId": str(dialog.uuid) if dialog else "",
            "botUUID": str(bot.uuid),
            "serverTime": epoch_ms(),
        }
        return self.envelope("historyResponse", values)


@chat_call(
    "Top used knowledge over a period",
    form=TOP_FORM,
    ok={
        200: envelope_schema(
            "topKnowledgeResponse",
            {
                "knowledgeArticles": {**B64, "description": "base64 of a JSON array of articles"},
                "serverTime": INTEGER,
                "tagName": B64,
            },
        )
    },
)
class TopKnowledgeView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        values = top_knowledge_values(snapshot_for(bot), self.params(request))
        return self.envelope("topKnowledgeResponse", values)


@chat_call(
    "Suggestions while the user types",
    form=SEARCH_FORM,
    ok={
        200: plain_schema(
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "rootConditionReword": {"type": "string"},
                        "knowledgeId": INTEGER,
                        "formulationId": INTEGER,
                    },
                },
            },
            "The matching formulations, plain text (no base64).",
        )
    },
)
class SearchView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        snapshot = snapshot_for(bot)
        text = params.text("search", required=True, max_length=600)
        found = suggestions(
            snapshot,
            text,
            language=snapshot.language(params.text("language")),
            space_id=snapshot.space_id(params.text("space")) or snapshot.default_space_id,
            limit=params.integer("limit", "maxResults", default=10, minimum=1, maximum=50),
            only_rewordable=params.boolean("onlyShowRewordables", default=True),
        )
        return plain_json(found)


@chat_call("Satisfaction vote on the last answer", form=FEEDBACK_FORM, ok=FEEDBACK_ANSWER)
class FeedbackView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        value = params.text("feedBack", "feedback", required=True)
        interaction = feedback.vote(self.context_dialog(request, bot), value)
        return self.envelope("feedbackResponse", {"interactionId": interaction.pk})


@chat_call("Comment on the last rated answer", form=COMMENT_FORM, ok=FEEDBACK_ANSWER)
class FeedbackCommentView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        text = self.params(request).text("comment", required=True)
        interaction = feedback.comment(self.context_dialog(request, bot), text)
        return self.envelope("feedbackResponse", {"interactionId": interaction.pk})


@chat_call("Reason for dissatisfaction (choiceKey 0, 1 or 2)", form=REASON_FORM, ok=FEEDBACK_ANSWER)
class InsatisfactionView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        if not params.text("choiceKey"):
            raise MissingField("choiceKey")
        choice = params.integer("choiceKey", minimum=0)
        interaction = feedback.reason(self.context_dialog(request, bot), choice)
        return self.envelope("feedbackResponse", {"interactionId": interaction.pk})


@chat_call(
    "Open a new context and return its id (as a script if Accept asks for javascript)",
    form=NEW_CONTEXT_FORM,
    ok={
        (200, "application/json"): envelope_schema("contextResponse", {"contextId": B64}, required=("contextId",)),
        (200, "application/javascript"): SCRIPT,
    },
)
class ContextView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        # Every field is read (and validated) before the dialog is created: a refusal stores nothing.
        wanted = talk_request_from_params(params)
        params.boolean("pureLiveChat")
        dialog = open_dialog(bot, wanted)
        # servlet-api.md answers script text; the chatbox's own code expects JSON: Accept decides.
        if "javascript" in request.headers.get("Accept", ""):
            return script(f"console.log({json.dumps(str(dialog.uuid))});")
        return self.envelope("contextResponse", {"contextId": str(dialog.uuid)})


@chat_call(
    "Previous dialogs of a user (clientId)",
    form=PREVIOUS_FORM,
    ok={
        200: envelope_schema(
            "getPreviousDialogsResponse",
            {
                "previousDialogs": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "contextId": B64,
                            "firstActivity": INTEGER,
                            "lastActivity": INTEGER,
                            "language": B64,
                            "active": BOOLEAN,
                        },
                    },
                }
            },
        )
    },
)
class PreviousDialogsView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        client_id = self.params(request).text("clientId", required=True, max_length=100)
        dialogs = Dialog.objects.filter(bot=bot, client_id=client_id).order_by("-last_activity")[:50]
        previous = [
            {
                "contextId": str(dialog.uuid),
                "firstActivity": epoch_ms(dialog.first_activity),
                "lastActivity": epoch_ms(dialog.last_activity),
                "language": dialog.language,
                "active": not dialog.is_revoked(),
            }
            for dialog in dialogs
        ]
        return self.envelope("getPreviousDialogsResponse", {"previousDialogs": previous})


@chat_call("Report a client error", form=CLIENT_ERROR_FORM, ok={200: plain_schema(EMPTY_OBJECT)})
class ClientErrorView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        ClientError.objects.create(
            bot=bot,
            context_id=params.text(*CONTEXT_ID, max_length=64),
            solution_used=params.text("solutionUsed", max_length=20),
            error=params.text("error", required=True, max_length=500),
            message=params.text("message", required=True, max_length=10000),
            stack_trace=params.text("stackTrace", max_length=20000),
            js_creation=params.text("jsCreation", max_length=100),
            browser=params.text("browser", max_length=200),
            os=params.text("os", max_length=200),
            user_url=params.text("userUrl", max_length=1000),
        )
        return plain_json({})


@chat_call(
    "Set (or, with an empty value, delete) a context variable",
    form=VARIABLE_FORM,
    ok={200: envelope_schema("variableResponse", {"name": B64, "value": B64})},
)
class VariableView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        name = params.text("name", required=True, max_length=100).strip()
        if not name:
            raise InvalidField("name", "must not be blank")
        value = "" if params.boolean("delete") else html.unescape(params.text("value", max_length=1000))
        dialog = self.context_dialog(request, bot)
        # One UPDATE merges the change into the stored variables: concurrent writes all land.
        statements.update(dialog, (), {name: value or None})
        return self.envelope("variableResponse", {"name": name, "value": value})


@chat_call("Save a GDPR request (Get or Delete)", form=GDPR_FORM, ok={200: plain_schema(EMPTY_OBJECT)})
class GdprView(ChatView):
    def post(self, request, bot_uuid):
        bot = get_bot(bot_uuid)
        params = self.params(request)
        client_id = params.text("clientId", required=True, max_length=100)
        wanted = params.text("object", required=True).strip().lower()
        objects = {choice.value.lower(): choice.value for choice in GdprRequest.Object}
        if wanted not in objects:
            raise InvalidField("object", "must be Get or Delete")
        mail = params.text("mail", "email", max_length=254).strip()
        if mail:
            try:
                validate_email(mail)
            except ValidationError:
                raise InvalidField("mail", "not a valid e-mail address") from None
        GdprRequest.objects.create(
            bot=bot,
            client_id=client_id,
            mail=mail,
            object=objects[wanted],
            language=params.text("language", max_length=8),
            requester_ip=request.META.get("REMOTE_ADDR") or None,
        )
        return plain_json({})
