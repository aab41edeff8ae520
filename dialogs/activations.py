"""What a dialog remembers of its complementary answers: how many times each was shown and when last,
so that their activation frequency (once per dialog, once every N interactions…) counts per dialog."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ComplementActivation(models.Model):
    """One complementary answer shown in one dialog. Only complements with a limited frequency get a
    row: a complement used every time (or a talk no complement applies to) stores nothing."""

    dialog = models.ForeignKey(
        "dialogs.Dialog", on_delete=models.CASCADE, related_name="complement_activations", verbose_name=_("dialog")
    )
    # The complement's knowledge item id, not a foreign key: a knowledge base import replaces the items
    # (keeping their ids when it can) without touching the dialogs.
    complement_id = models.BigIntegerField(verbose_name=_("complement ID"))
    times = models.PositiveIntegerField(default=0, verbose_name=_("times"))
    last_shown_at = models.DateTimeField(verbose_name=_("last shown at"))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["dialog", "complement_id"], name="unique_complement_activation")]
        verbose_name = _("complement activation")
        verbose_name_plural = _("complement activations")

    def __str__(self):
        return f"Complement {self.complement_id} × {self.times} in {self.dialog_id}"
