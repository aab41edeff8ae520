"""The chatbox's frames ({"type": …, "parameters": {…}}, client-contract.md §4.2), handled once for the
websocket and for the old servlet's /chatHttp?data=…: each frame calls the same dialog services as
its REST twin and returns the frames to send back (often none: live chat pushes its own)."""

from dataclasses import dataclass, field

from django.utils import timezone

from accounts.saml.guard import check_frame
from bots.servlet.errors import InvalidField, NotFound
from bots.servlet.params import CONTEXT_ID, ServletParams
from bots.servlet.views import get_bot
from dialogs import contexts, feedback
from dialogs.engine import talk
from dialogs.history import history_values
from dialogs.models import Dialog
from dialogs.requests import params_from_frame, talk_request_from_params
from dialogs.surveys import answers as survey_answers
from dialogs.surveys import definitions as surveys
from dialogs.topknowledge import top_knowledge_values
from knowledge.snapshot import snapshot_for

from . import visitors
from .delivery import frame_text
from .handover import visitor_reading, visitor_typing


@dataclass(frozen=True)
class Sender:
    """Where a frame came from: "websocket" or "polling" (/chatHttp), the visitor's peer address, and the
    server's address as the chatbox reached it (answers link pages of this server with it)."""

    transport: str
    address: str = ""
    server: str = ""


@dataclass
class Outcome:
    """What a frame gives: frames to send back, the dialog the socket now follows, and whether live chat
    holds that dialog (None: the frame does not say), for which the socket keeps its visitor's presence."""

    frames: list[str] = field(default_factory=list)
    context_id: str = ""
    live: bool | None = None

    def reply(self, frame_type: str, values: dict):
        self.frames.append(frame_text(frame_type, values))


def handle(frame: dict, transport: str, client_address: str = "", server_url: str = "") -> Outcome:
    """One frame from a chatbox (`client_address`: the peer the server saw, `server_url`: the address it
    reached); ServletError (400/404) for a frame that cannot be served."""
    frame_type = str(frame.get("type", ""))
    parameters = frame.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise InvalidField("parameters", "a JSON object")
    params = params_from_frame(parameters)
    bot = get_bot(params.text("botId", "botUUID"))
    check_frame(bot, params)  # a bot with SAML on serves only visitors logged in with it (accounts/saml)
    handler = HANDLERS.get(frame_type)
    if handler is None:
        raise InvalidField("type", f"unknown frame type {frame_type[:40]!r}")
    outcome = Outcome()
    handler(bot, params, outcome, Sender(transport, client_address, server_url))
    return outcome


def _talk(bot, params: ServletParams, outcome: Outcome, sender: Sender):
    request = talk_request_from_params(params, client_address=sender.address)
    request.mode = sender.transport
    request.server_url = sender.server
    answer = talk(bot, request)
    outcome.context_id = str(answer.dialog.uuid)
    outcome.live = answer.dialog.livechat != Dialog.Livechat.BOT
    # A message to the operator has no bot answer; leaving the queue was pushed to the socket already.
    if not (answer.relayed or answer.pushed):
        outcome.reply("talkResponse", answer.values(bot))


def _check_context(bot, params, outcome, sender):
    dialog = contexts.active_dialog(bot, params.text(*CONTEXT_ID))
    if dialog is not None:
        outcome.context_id = str(dialog.uuid)
        # A chatbox checks its dialog when its live-chat socket opens: its visitor is there (back, maybe).
        outcome.live = visitors.here(dialog)
    outcome.reply("checkContextAvailabilityResponse", {"isContextStillAvailable": dialog is not None})


def _history(bot, params, outcome, sender):
    dialog = contexts.active_dialog(bot, params.text("dialog") or params.text(*CONTEXT_ID))
    if dialog is not None:
        outcome.context_id = str(dialog.uuid)
    values = {"interactions": history_values(dialog), "contextId": str(dialog.uuid) if dialog else ""}
    outcome.reply("historyResponse", values)


def _top_knowledge(bot, params, outcome, sender):
    outcome.reply("topKnowledgeResponse", top_knowledge_values(snapshot_for(bot), params))


def _dialog(bot, params: ServletParams):
    dialog = contexts.active_dialog(bot, params.text(*CONTEXT_ID))
    if dialog is None:
        raise NotFound("No live dialog has this context id.", code="UNKNOWN_CONTEXT")
    return dialog


def _typing(bot, params, outcome, sender):
    dialog = _dialog(bot, params)
    outcome.context_id = str(dialog.uuid)
    content = params.text("content", max_length=2000)
    visitor_typing(dialog, params.boolean("typing", default=True) and bool(content), content, timezone.now())


def _reading(bot, params, outcome, sender):
    dialog = _dialog(bot, params)
    outcome.context_id = str(dialog.uuid)
    visitor_reading(dialog, timezone.now())


def _feedback(bot, params, outcome, sender):
    """The spec's three feedBack frames (servlet-api.md §6): stored like their REST twins, no reply."""
    dialog = contexts.known_dialog(bot, params.text(*CONTEXT_ID))
    if dialog is None:
        raise NotFound("No dialog has this context id.", code="UNKNOWN_CONTEXT")
    if params.text("comment"):
        feedback.comment(dialog, params.text("comment"))
    elif params.text("choiceKey"):
        feedback.reason(dialog, params.integer("choiceKey", minimum=0))
    else:
        feedback.vote(dialog, params.text("feedBack", "feedback", required=True))


def _survey_configuration(bot, params, outcome, sender):
    dialog = contexts.known_dialog(bot, params.text(*CONTEXT_ID))
    if dialog is not None:
        outcome.context_id = str(dialog.uuid)
    survey = surveys.find_survey(bot, params.text("surveyId", "uuid"))
    outcome.reply("surveyConfigurationResponse", surveys.configuration_values(survey, outcome.context_id))


def _survey(bot, params, outcome, sender):
    """A visitor's survey answers (`fields` {id: value}), checked and stored like chat/survey's."""
    dialog = _dialog(bot, params)
    outcome.context_id = str(dialog.uuid)
    survey = surveys.find_survey(bot, params.text("surveyId", "uuid"))
    stored = survey_answers.submit(
        survey,
        dialog,
        survey_answers.json_values(params.text("fields")),
        transport="chatHttp" if sender.transport == "polling" else sender.transport,
        operator=params.text("operator", max_length=200),
        interaction_survey=params.boolean("interactionSurveyAnswer"),
    )
    outcome.reply(
        "surveyResponse", {"surveyId": str(survey.uuid), "contextId": outcome.context_id, "answerId": stored.pk}
    )


HANDLERS = {
    "talk": _talk,
    "checkContextAvailability": _check_context,
    "history": _history,
    "topknowledge": _top_knowledge,
    "typing": _typing,
    "reading": _reading,
    "feedBack": _feedback,
    "feedback": _feedback,
    "feedbackComment": _feedback,
    "feedbackInsatisfaction": _feedback,
    "surveyConfiguration": _survey_configuration,
    "survey": _survey,
}
