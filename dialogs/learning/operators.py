"""The questions operators answered without a suggested answer: visitors' messages in live chat whose first
operator reply used none of the bot's suggestions (livechat/suggestions.py keeps, with each operator
message, the visitor message it answers and the suggestion it came from). What the bot's knowledge lacks."""

from __future__ import annotations

from datetime import datetime

from dialogs.handover import Code
from dialogs.models import Interaction

# What such an input is called among the bot's answer types (inputs.py counts them apart).
ANSWERED = "operator_answered_without_suggestion"


def unsuggested(bot, since: datetime, limit: int) -> list[tuple[str, str, datetime]]:
    """(text, language, when asked) of the bot's visitor messages answered by an operator who used no
    suggestion, newest answers first, at most `limit`; qualification-mode dialogs left out."""
    replies = (
        Interaction.objects.filter(
            bot=bot,
            counted=True,
            human=True,
            type_response=Code.OPERATOR_ANSWER,
            created_at__gte=since,
            payload__has_key="question",
        )
        .exclude(payload__has_key="suggestion")
        .order_by("-created_at", "-id")
        .values_list("payload", flat=True)[:limit]
    )
    ids = [payload["question"] for payload in replies if isinstance(payload.get("question"), int)]
    if not ids:
        return []
    questions = (
        Interaction.objects.filter(pk__in=ids, bot=bot, type_response=Code.VISITOR_MESSAGE)
        .exclude(user_input="")
        .order_by("-created_at", "-id")
        .values_list("user_input", "language", "created_at")
    )
    return list(questions)
