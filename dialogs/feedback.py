"""Feedback on answers: the vote, the reason for dissatisfaction and the comment, each stored on
the interaction it rates."""

from bots.servlet.errors import InvalidField, NotFound

from .models import Dialog, Interaction

REASONS = (0, 1, 2)
COMMENT_MAX_CHARS = 1000


def voted_interaction(dialog: Dialog) -> Interaction:
    """The answer a vote rates (the call names only the dialog): the latest answer that asked for
    feedback and has no vote yet, else the latest that asked, else the latest answer."""
    rows = Interaction.objects.filter(dialog=dialog).order_by("-created_at", "-id")
    found = (
        rows.filter(ask_feedback=True, feedback="").first() or rows.filter(ask_feedback=True).first() or rows.first()
    )
    if found is None:
        raise NotFound("This dialog has no answer to rate yet.", code="NO_INTERACTION")
    return found


def followed_interaction(dialog: Dialog) -> Interaction:
    """The answer a reason or a comment follows up: the latest one voted on, else as for a vote."""
    voted = Interaction.objects.filter(dialog=dialog).exclude(feedback="").order_by("-created_at", "-id")
    return voted.filter(feedback=Interaction.Feedback.NEGATIVE).first() or voted.first() or voted_interaction(dialog)


def vote(dialog: Dialog, value: str) -> Interaction:
    choices = {choice.value.lower(): choice.value for choice in Interaction.Feedback}
    feedback = choices.get(value.strip().lower())
    if feedback is None:
        raise InvalidField("feedBack", f"'{value[:40]}' is not one of positive, negative, withoutAnswer")
    interaction = voted_interaction(dialog)
    Interaction.objects.filter(pk=interaction.pk).update(feedback=feedback)
    return interaction


def reason(dialog: Dialog, choice_key: int) -> Interaction:
    if choice_key not in REASONS:
        raise InvalidField("choiceKey", "must be 0, 1 or 2 (the index of the chosen reason)")
    interaction = followed_interaction(dialog)
    Interaction.objects.filter(pk=interaction.pk).update(
        feedback_choice_key=choice_key, feedback=interaction.feedback or Interaction.Feedback.NEGATIVE
    )
    return interaction


def comment(dialog: Dialog, text: str) -> Interaction:
    interaction = followed_interaction(dialog)
    Interaction.objects.filter(pk=interaction.pk).update(feedback_comment=text[:COMMENT_MAX_CHARS])
    return interaction
