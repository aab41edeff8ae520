"""A dialog's qualification, computed in the database for a whole page of dialogs: only direct answers,
answered after misunderstandings, or ended misunderstood (product-behaviour.md §2.2, §4.1). A dialog with no
question of the visitor's, or one that went to live chat, has none."""

from django.db.models import BooleanField, Case, Exists, ExpressionWrapper, OuterRef, Q, Subquery, Value, When
from django.utils.translation import gettext_lazy as _

from ..bulk.selection import went_to_livechat
from ..clicks import NOT_COUNTED
from ..engine import TypeResponse
from ..models import Interaction

DIRECT = "direct"
RECOVERED = "recovered"
FAILED = "failed"
NONE = "none"
LABELS = {
    DIRECT: _("Only direct answers"),
    RECOVERED: _("Answered after misunderstandings"),
    FAILED: _("Ended misunderstood"),
    NONE: _("Not qualified"),
}
MISUNDERSTOOD = (TypeResponse.MISUNDERSTOOD, TypeResponse.TOO_MANY_MISUNDERSTOOD)
# Inputs that are no question of the visitor's: the chat opening, a restart, the page pushing an item.
NOT_ASKED_INPUTS = ("#welcome#", "#reset#")
NOT_ASKED_TYPES = (*NOT_COUNTED, TypeResponse.CLIENT_PUSH)


def failed_turn() -> Q:
    """An answer that missed: a rewording offered (the bot was unsure) or a misunderstood question."""
    return Q(type_response__startswith="RW") | Q(type_response__in=MISUNDERSTOOD)


def answered_turn() -> Q:
    return Q(type_response__startswith="DM") & ~Q(type_response__startswith="DMLiveChat")


def questions():
    """The dialog's interactions that answer a visitor's question (for OuterRef("pk"), a dialog)."""
    return (
        Interaction.objects.filter(dialog=OuterRef("pk"), human=False)
        .exclude(user_input__in=NOT_ASKED_INPUTS)
        .exclude(type_response__in=NOT_ASKED_TYPES)
    )


def annotate(dialogs):
    """The dialogs with `qualification` (DIRECT, RECOVERED, FAILED or NONE) and `went_livechat`."""
    telling = questions().filter(answered_turn() | failed_turn())
    last = telling.order_by("-created_at", "-id").values("type_response")[:1]
    return dialogs.annotate(
        went_livechat=ExpressionWrapper(went_to_livechat(), output_field=BooleanField()),
        missed_once=Exists(questions().filter(failed_turn())),
        last_type=Subquery(last),
    ).annotate(
        qualification=Case(
            When(went_livechat=True, then=Value(NONE)),
            When(last_type__isnull=True, then=Value(NONE)),
            When(missed_once=False, then=Value(DIRECT)),
            When(Q(last_type__startswith="RW") | Q(last_type__in=MISUNDERSTOOD), then=Value(FAILED)),
            default=Value(RECOVERED),
        )
    )
