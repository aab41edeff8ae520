"""Which dialogs an export takes: a bot's, over a period, filtered by space, language, qualification
mode, live chat and feedback. The servlet and `manage.py export_dialogs` read the same fields here."""

from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q, QuerySet

from bots.servlet.errors import InvalidField
from bots.servlet.params import ServletParams

from ..handover import Code
from ..models import Dialog, Interaction
from .period import Period, period_from

FEEDBACKS = {
    "positive": Interaction.Feedback.POSITIVE,
    "negative": Interaction.Feedback.NEGATIVE,
    "withoutanswer": Interaction.Feedback.WITHOUT_ANSWER,
    "any": "any",
    "none": "none",
}
# Answers stored when a dialog was handed to a human (or queued for one); dialogs never imports livechat.
HANDOVER_TYPES = (Code.CONNECTION_SUCCEED, Code.WAITING_FOR_OPERATOR, Code.IN_QUEUE, Code.VISITOR_MESSAGE)


def went_to_livechat():
    """True for a dialog live chat holds now or held at some point (an operator wrote, or it was queued)."""
    handed_over = Interaction.objects.filter(dialog=OuterRef("pk")).filter(
        Q(human=True) | Q(type_response__in=HANDOVER_TYPES)
    )
    return Q(livechat__in=[Dialog.Livechat.QUEUED, Dialog.Livechat.OPERATOR]) | Q(Exists(handed_over))


@dataclass(frozen=True)
class Selection:
    bot_id: int
    period: Period = field(default_factory=Period)
    space: str = ""
    language: str = ""
    qualification: bool | None = None  # True: test dialogs only, False: real ones only
    livechat: bool | None = None
    feedback: str = ""  # a feedback value, "any" (some feedback) or "none"

    @classmethod
    def from_params(cls, bot, params: ServletParams) -> "Selection":
        feedback = params.text("feedback", "feedBack", max_length=40)
        if feedback and feedback.lower() not in FEEDBACKS:
            raise InvalidField("feedback", "use positive, negative, withoutAnswer, any or none")
        return cls(
            bot_id=bot.pk,
            period=period_from(params),
            space=params.text("space", max_length=100),
            language=params.text("language", max_length=8).lower(),
            qualification=optional_flag(params, "qualificationMode", "qualification"),
            livechat=optional_flag(params, "livechat", "liveChat"),
            feedback=FEEDBACKS[feedback.lower()] if feedback else "",
        )

    def base_dialogs(self) -> QuerySet:
        """The dialogs the plain columns select (bot, period, space, language, qualification mode)."""
        dialogs = Dialog.objects.filter(bot_id=self.bot_id)
        if self.period.start is not None:
            dialogs = dialogs.filter(first_activity__gte=self.period.start)
        if self.period.end is not None:
            dialogs = dialogs.filter(first_activity__lt=self.period.end)
        if self.space:
            dialogs = dialogs.filter(space=self.space)
        if self.language:
            dialogs = dialogs.filter(language=self.language)
        if self.qualification is not None:
            dialogs = dialogs.filter(qualification_mode=self.qualification)
        return dialogs

    def dialogs(self) -> QuerySet:
        """Every selected dialog in one query (counts); the export applies the live chat and feedback
        filters batch by batch instead (keeps), since PostgreSQL may plan these EXISTS as a scan of
        every interaction, once per query."""
        dialogs = self.base_dialogs()
        if self.livechat is not None:
            dialogs = dialogs.filter(went_to_livechat() if self.livechat else ~went_to_livechat())
        if self.feedback:
            given = Interaction.objects.filter(dialog=OuterRef("pk")).exclude(feedback="")
            if self.feedback not in ("any", "none"):
                given = given.filter(feedback=self.feedback)
            dialogs = dialogs.exclude(Exists(given)) if self.feedback == "none" else dialogs.filter(Exists(given))
        return dialogs

    def interactions(self) -> QuerySet:
        return Interaction.objects.filter(dialog__in=self.dialogs())

    def keeps(self, marks: "Marks") -> bool:
        """The live chat and feedback filters, on a dialog's marks."""
        if self.livechat is not None and marks.livechat != self.livechat:
            return False
        if self.feedback == "any":
            return bool(marks.feedbacks)
        if self.feedback == "none":
            return not marks.feedbacks
        return not self.feedback or self.feedback in marks.feedbacks


@dataclass
class Marks:
    """What a dialog's interactions say about it: live chat, and the feedback given."""

    livechat: bool = False
    feedbacks: set = field(default_factory=set)


def dialog_marks(dialogs: dict[int, str]) -> dict[int, Marks]:
    """The marks of these dialogs (id → its `livechat` state) in one query on their interactions."""
    marks = {dialog_id: Marks(livechat=bool(state)) for dialog_id, state in dialogs.items()}
    telling = (
        Interaction.objects.filter(dialog_id__in=list(dialogs))
        .filter(Q(human=True) | Q(type_response__in=HANDOVER_TYPES) | ~Q(feedback=""))
        .values_list("dialog_id", "human", "type_response", "feedback")
    )
    for dialog_id, human, type_response, feedback in telling:
        mark = marks[dialog_id]
        mark.livechat = mark.livechat or human or type_response in HANDOVER_TYPES
        if feedback:
            mark.feedbacks.add(feedback)
    return marks


def optional_flag(params: ServletParams, *names: str) -> bool | None:
    """None when absent (no filter), else the one boolean parser (a bad value is a 400)."""
    return params.boolean(*names) if params.text(*names).strip() else None
