"""A dialog's qualification, computed in the database for a whole page of dialogs: only direct answers,
answered after misunderstandings, or ended misunderstood (product-behaviour.md §2.2, §4.1). A dialog with no
question of the visitor's, or one that went to live chat, has none.

One correlated subquery per dialog reads its interactions once (a grouped scan on the dialog's index) and
returns the qualification itself, so filtering on it does not repeat the work. A dialog's interactions are
stored in the order they happen: the latest answer is the one with the highest id."""

from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Count,
    ExpressionWrapper,
    F,
    Max,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from ..bulk.selection import HANDOVER_TYPES, went_to_livechat
from ..clicks import NOT_COUNTED
from ..engine import TypeResponse
from ..models import Dialog, Interaction

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


def question() -> Q:
    """An interaction that answers a question of the visitor's (not an opening, a push or an operator)."""
    return Q(human=False) & ~Q(user_input__in=NOT_ASKED_INPUTS) & ~Q(type_response__in=NOT_ASKED_TYPES)


def qualification_of_dialog():
    """The qualification of the dialog OuterRef("pk") from its interactions; NULL when it has none."""
    telling = question() & (answered_turn() | failed_turn())
    grouped = (
        Interaction.objects.filter(dialog=OuterRef("pk"))
        .order_by()
        .values("dialog")
        .annotate(
            handed=Count("id", filter=Q(human=True) | Q(type_response__in=HANDOVER_TYPES)),
            last_telling=Max("id", filter=telling),
            last_missed=Max("id", filter=question() & failed_turn()),
        )
        .annotate(
            qualification=Case(
                When(handed__gt=0, then=Value(NONE)),
                When(last_telling__isnull=True, then=Value(NONE)),
                When(last_missed__isnull=True, then=Value(DIRECT)),
                When(last_missed=F("last_telling"), then=Value(FAILED)),
                default=Value(RECOVERED),
                output_field=CharField(),
            )
        )
        .values("qualification")
    )
    return Subquery(grouped, output_field=CharField())


def annotate(dialogs):
    """The dialogs with `qualification` (DIRECT, RECOVERED, FAILED or NONE) and `went_livechat`."""
    return dialogs.annotate(
        went_livechat=ExpressionWrapper(went_to_livechat(), output_field=BooleanField()),
        qualification=Case(
            When(livechat__in=[Dialog.Livechat.QUEUED, Dialog.Livechat.OPERATOR], then=Value(NONE)),
            default=Coalesce(qualification_of_dialog(), Value(NONE)),
            output_field=CharField(),
        ),
    )
