"""The talk pipeline's door to live chat, and the live-chat words of the chat protocol.

The livechat app registers the one Handover when it starts; dialogs never imports livechat (the
dependency goes livechat → dialogs). Without a registered handover the bot simply keeps answering.
"""

from dataclasses import dataclass, field
from typing import Protocol

# The special input of the chatbox's "leave the queue" button (client-contract.md §4.3).
LEAVE_QUEUE_INPUT = "#livechatleavequeue#"


class Code:
    """typeResponse, specialAction and notification codes the chatbox reacts to (client-contract.md §3, §4)."""

    CONNECTION_SUCCEED = "DMLiveChatConnectionSucceed"
    IN_QUEUE = "DMLiveChatConnectionInQueue"
    WAITING_FOR_OPERATOR = "NAWaitingForOperator"
    LEAVE_QUEUE = "DMLiveChatLeaveQueue"
    OPERATOR_ANSWER = "OPRegularOperatorAnswer"
    END_BY_OPERATOR = "OPLiveChatEndByOperator"
    AUTO_CLOSE = "NAAutoCloseDialog"
    AUTO_CLOSE_USER_LEFT = "NAAutoCloseDialogBecauseUserLeft"
    NO_OPERATOR = "GBLiveChatNoOperatorAvailable"
    # What a visitor writes to an operator: stored in the dialog, never answered by the bot.
    VISITOR_MESSAGE = "LCVisitorMessage"

    START_POLLING = "StartPolling"
    START_WAITING_QUEUE = "StartWaitingQueue"
    LEAVE_WAITING_QUEUE = "LeaveWaitingQueue"
    END_POLLING = "EndPolling"

    OPERATOR_CONNECTED = "OperatorConnected"
    OPERATOR_DISCONNECTED = "OperatorDisconnected"
    OPERATOR_WRITING = "OperatorWritingStatus"
    OPERATOR_BUSY = "OperatorBusy"
    TRANSFERRED_MANUALLY = "DialogTransferredManually"
    TRANSFERRED_AUTOMATICALLY = "DialogTransferredAutomatically"
    ADDED_TO_OPERATOR_PANEL = "DialogAddedOperatorPanel"
    ALMOST_TIMED_OUT = "AlmostTimedOut"


# Answers that end live chat in the chatbox; a dialog's history ending on one of these is over.
END_TYPES = frozenset({Code.END_BY_OPERATOR, Code.AUTO_CLOSE, Code.AUTO_CLOSE_USER_LEFT})


@dataclass
class Reply:
    """What the bot (or live chat) answers to one input, before it is stored and sent."""

    text: str
    type_response: str
    knowledge_id: int = 0
    ask_feedback: bool = False
    payload: dict = field(default_factory=dict)
    reworded: list[int] = field(default_factory=list)
    # Why the answer asks for a human ("answer": its item escalates; "too_many_misunderstood": the
    # bot lost the visitor, which hands over only where the bot's live-chat settings say so).
    escalate: str = ""
    competency: str = ""
    # The input went to the operator: no bot answer is shown for it.
    relayed: bool = False
    # Live chat pushed this answer to the dialog's sockets already: a websocket gets no second copy.
    pushed: bool = False
    # Complementary answers of limited frequency shown in it ({id: times shown before}), recorded with it.
    complements: dict = field(default_factory=dict)


class Handover(Protocol):
    def escalate(self, dialog, request, reply: Reply, now) -> Reply:
        """Hand the dialog to an operator (or the queue); the reply says what the visitor sees."""

    def relay(self, dialog, interaction, request, now) -> Reply:
        """The visitor wrote while live chat holds the dialog: pass the stored input to the operator."""

    def leave_queue(self, dialog, request, now) -> Reply:
        """The visitor leaves the waiting queue (#livechatleavequeue#) and goes back to the bot."""

    def close(self, dialog, now) -> None:
        """The visitor starts a new dialog (#reset#): live chat lets this one go."""

    def talked(self, dialog, interaction) -> None:
        """A talk was stored (`interaction`: None when the chatbox asked not to register it)."""


_handover: Handover | None = None


def register(handover: Handover) -> None:
    global _handover
    _handover = handover


def current() -> Handover | None:
    return _handover
