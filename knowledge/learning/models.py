"""The learning page's two models: misunderstood inputs (a proxy of the dialogs' interactions, for the page's
permissions and sidebar entry) and the groups of inputs a person chose to ignore, with the reason."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from dialogs.models import Interaction


class MisunderstoodInput(Interaction):
    """A visitor's input the bot did not understand or answered with rewordings (knowledge/learning/)."""

    class Meta:
        proxy = True
        app_label = "knowledge"
        verbose_name = _("misunderstood question")
        verbose_name_plural = _("misunderstood questions")


class IgnoredGroup(models.Model):
    """Inputs set aside from learning, with why: their texts (normalised) never come back on the page, nor
    does a group they lead."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="ignored_inputs", verbose_name=_("bot"))
    language = models.CharField(_("language"), max_length=8)
    label = models.CharField(_("question"), max_length=600, help_text=_("The group's most asked input."))
    texts = models.JSONField(_("inputs"), default=list, help_text=_("The group's inputs, normalised."))
    count = models.PositiveIntegerField(_("times asked"), default=0)
    reason = models.CharField(_("reason"), max_length=500)
    ignored_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("ignored by"),
    )
    ignored_at = models.DateTimeField(_("ignored at"), default=timezone.now)

    class Meta:
        app_label = "knowledge"
        ordering = ["-ignored_at"]
        verbose_name = _("ignored misunderstood question")
        verbose_name_plural = _("ignored misunderstood questions")

    def __str__(self):
        return self.label
