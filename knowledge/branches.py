"""Answer branches: an item's other answers in one language and space, each chosen by its context
conditions on the dialog's variables, and the variables an answer sets."""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from .conditions import OPERATORS


def validate_conditions(value):
    """A list of {"variable", "operator", "value"} with a known operator."""
    if not isinstance(value, list):
        raise ValidationError('A JSON list: [{"variable": "age", "operator": "greater", "value": "18"}].')
    for condition in value:
        if not isinstance(condition, dict) or not str(condition.get("variable") or "").strip():
            raise ValidationError("Each condition names its variable.")
        if condition.get("operator") not in OPERATORS:
            raise ValidationError(f"Operator must be one of: {', '.join(OPERATORS)}.")
        if not isinstance(condition.get("value", ""), str):
            raise ValidationError("A condition's value is text.")


def validate_set_variables(value):
    """A JSON object of names to text values."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValidationError('A JSON object of names to text values: {"client_type": "pro"}.')


class AnswerBranch(models.Model):
    """One priority group: when all its conditions hold (the first such branch, by position), its text
    answers instead of the item's answer for that language and space. No condition: always holds."""

    item = models.ForeignKey(
        "knowledge.KnowledgeItem", on_delete=models.CASCADE, related_name="branches", verbose_name=_("item")
    )
    language = models.CharField(max_length=8, verbose_name=_("language"))
    # As the answers' spaces: a space in use cannot be deleted; deleting the whole bot deletes both.
    space = models.ForeignKey(
        "bots.Space", on_delete=models.RESTRICT, related_name="answer_branches", verbose_name=_("space")
    )
    position = models.PositiveIntegerField(_("priority"), default=0, help_text=_("Lower first."))
    conditions = models.JSONField(
        default=list,
        blank=True,
        validators=[validate_conditions],
        help_text=_(
            'All must hold. [{"variable": "age", "operator": "greater", "value": "25"}]; '
            "operators: defined (is defined), is (is), contained (is contained), contains "
            "(contains), greater (greater than), less (less than). Numbers compare as "
            "numbers, other text case-insensitively."
        ),
        verbose_name=_("conditions"),
    )
    text = models.TextField(_("answer (HTML)"), blank=True)
    set_variables = models.JSONField(
        _("sets variables"),
        default=dict,
        blank=True,
        validators=[validate_set_variables],
        help_text=_('Stored on the dialog when this answer is given: {"client_type": "pro"}.'),
    )

    class Meta:
        ordering = ["language", "position", "id"]
        indexes = [models.Index(fields=["item", "language", "space"])]
        verbose_name = _("answer branch")
        verbose_name_plural = _("answer branches")

    def __str__(self):
        return f"{self.item} [{self.language}/{self.space}] #{self.position}"
