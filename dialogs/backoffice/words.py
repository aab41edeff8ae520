"""The chat protocol's internal codes (typeResponse, the click's origin, special inputs) in words people
read on the dialogs page: no code is shown raw."""

from django.utils.translation import gettext_lazy as _

from .. import clicks, mailto, spaces
from ..engine import TypeResponse
from ..handover import LEAVE_QUEUE_INPUT, Code

ANSWERS = {
    TypeResponse.UNDERSTOOD: _("Direct answer"),
    TypeResponse.REWORD_CLICKED: _("Answer to a rewording"),
    TypeResponse.CLIENT_PUSH: _("Pushed by the page"),
    TypeResponse.ONE_REWORD: _("Rewording offered"),
    TypeResponse.SEVERAL_REWORDS: _("Rewordings offered"),
    TypeResponse.MISUNDERSTOOD: _("Not understood"),
    TypeResponse.TOO_MANY_MISUNDERSTOOD: _("Not understood, too many times"),
    TypeResponse.EMPTY: _("Empty question"),
    TypeResponse.TOO_LONG: _("Question too long"),
    spaces.OFFERED: _("Another space offered"),
    clicks.LINK_FOLLOWED: _("Link followed"),
    mailto.SENT: _("Conversation sent by e-mail"),
    mailto.REFUSED: _("Conversation not sent by e-mail"),
    Code.CONNECTION_SUCCEED: _("Handed to an operator"),
    Code.IN_QUEUE: _("Waiting in the live-chat queue"),
    Code.WAITING_FOR_OPERATOR: _("Waiting for an operator"),
    Code.LEAVE_QUEUE: _("Left the live-chat queue"),
    Code.OPERATOR_ANSWER: _("Operator's message"),
    Code.END_BY_OPERATOR: _("Live chat ended by the operator"),
    Code.AUTO_CLOSE: _("Live chat closed for inactivity"),
    Code.AUTO_CLOSE_USER_LEFT: _("Live chat closed: the visitor left"),
    Code.NO_OPERATOR: _("No operator available"),
    Code.VISITOR_MESSAGE: _("Message to the operator"),
}
# How the visitor's input came: typed (no origin) or one of the chatbox's clicks.
ORIGINS = {
    clicks.REWORD: _("clicked a rewording"),
    clicks.KNOWLEDGE: _("clicked a link to an answer"),
    spaces.REDIRECTION: _("chose another space"),
    "redirection_personnality": _("clicked a link to an answer"),
    "reword_teaser": _("clicked a teaser"),
    "exportable_faq": _("clicked a question of the FAQ"),
    "reword_feedback": _("clicked a question offered after feedback"),
    "redirection": _("followed a link"),
    "redirection_newpage": _("followed a link (new tab)"),
    "redirection_javascript": _("clicked a button"),
    "redirection_invalidlink": _("clicked a broken link"),
    "before_close_dialog": _("closed the chat"),
}
SPECIAL_INPUTS = {
    "#welcome#": _("Opened the chat"),
    "#reset#": _("Started a new conversation"),
    LEAVE_QUEUE_INPUT: _("Left the live-chat queue"),
}
WELCOME = _("Welcome message")
SURVEY_SENT = _("Answered the survey “%(title)s”")
FEEDBACK = {
    "positive": _("Useful"),
    "negative": _("Not useful"),
    "withoutAnswer": _("Left without answering"),
}


def answer_kind(type_response: str) -> str:
    """The answer's kind in words; a code this page does not know yet reads by its family."""
    if type_response in ANSWERS:
        return ANSWERS[type_response]
    if type_response.startswith("RW"):
        return _("Rewording offered")
    if type_response.startswith("GB"):
        return _("Bot's sentence")
    if type_response.startswith(("OP", "NA", "LC")):
        return _("Live chat")
    return _("Answer")


def origin(value: str) -> str:
    return ORIGINS.get(value, _("clicked") if value else "")


def special_input(text: str) -> str | None:
    """The words for an input the chatbox sends by itself (None for what the visitor wrote)."""
    if text in SPECIAL_INPUTS:
        return SPECIAL_INPUTS[text]
    if mailto.is_mailto(text):
        return _("Asked for the conversation by e-mail")
    if text.startswith(("_goalpage_:", "_pushcondition_:")):
        return _("The page pushed an answer")
    return None


def note_kind(note) -> str:
    """What a staff note is, in words (dialogs.notes)."""
    if note.kind == "whisper":
        return _("Whisper to %(operator)s") % {"operator": note.to_name} if note.to_name else _("Whisper")
    if note.kind == "joined":
        return _("Supervisor joined the conversation")
    return _("Private note")
