"""What the Rasa mirror remembers: each knowledge item's intent name, and each language's last export."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ExternalIntent(models.Model):
    """The intent name a knowledge item carries in Rasa training data, given once and then kept, so the
    name survives label edits and a re-import finds the item again."""

    bot = models.ForeignKey(
        "bots.Bot", on_delete=models.CASCADE, related_name="external_intents", verbose_name=_("bot")
    )
    item = models.OneToOneField(
        "knowledge.KnowledgeItem", on_delete=models.CASCADE, related_name="external_intent", verbose_name=_("item")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))

    class Meta:
        app_label = "knowledge"
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["bot", "name"], name="unique_external_intent_name")]
        verbose_name = _("external intent")
        verbose_name_plural = _("external intents")

    def __str__(self):
        return self.name


class RasaMirror(models.Model):
    """The last Rasa NLU export of a bot in one language: when, by whom, and what the knowledge was."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="rasa_mirrors", verbose_name=_("bot"))
    language = models.CharField(max_length=8, verbose_name=_("language"))
    exported_at = models.DateTimeField(verbose_name=_("exported at"))
    exported_by = models.CharField(max_length=150, blank=True, verbose_name=_("exported by"))
    knowledge_version = models.PositiveBigIntegerField(verbose_name=_("knowledge version"))
    # SHA-256 of the exported file: an edit that leaves the training data as it was is no change.
    content_hash = models.CharField(max_length=64, verbose_name=_("content hash"))
    intents = models.PositiveIntegerField(default=0, verbose_name=_("intents"))
    examples = models.PositiveIntegerField(default=0, verbose_name=_("examples"))
    synonyms = models.PositiveIntegerField(default=0, verbose_name=_("synonyms"))

    class Meta:
        app_label = "knowledge"
        ordering = ["language"]
        constraints = [models.UniqueConstraint(fields=["bot", "language"], name="unique_rasa_mirror_language")]
        verbose_name = _("Rasa mirror")
        verbose_name_plural = _("Rasa mirrors")

    def __str__(self):
        return f"Rasa mirror of {self.bot_id} [{self.language}]"
