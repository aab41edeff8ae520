"""What the Rasa mirror remembers: each knowledge item's intent name, and each language's last export."""

from django.db import models


class ExternalIntent(models.Model):
    """The intent name a knowledge item carries in Rasa training data, given once and then kept, so the
    name survives label edits and a re-import finds the item again."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="external_intents")
    item = models.OneToOneField("knowledge.KnowledgeItem", on_delete=models.CASCADE, related_name="external_intent")
    name = models.CharField(max_length=200)

    class Meta:
        app_label = "knowledge"
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["bot", "name"], name="unique_external_intent_name")]

    def __str__(self):
        return self.name


class RasaMirror(models.Model):
    """The last Rasa NLU export of a bot in one language: when, by whom, and what the knowledge was."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="rasa_mirrors")
    language = models.CharField(max_length=8)
    exported_at = models.DateTimeField()
    exported_by = models.CharField(max_length=150, blank=True)
    knowledge_version = models.PositiveBigIntegerField()
    # SHA-256 of the exported file: an edit that leaves the training data as it was is no change.
    content_hash = models.CharField(max_length=64)
    intents = models.PositiveIntegerField(default=0)
    examples = models.PositiveIntegerField(default=0)
    synonyms = models.PositiveIntegerField(default=0)

    class Meta:
        app_label = "knowledge"
        ordering = ["language"]
        constraints = [models.UniqueConstraint(fields=["bot", "language"], name="unique_rasa_mirror_language")]

    def __str__(self):
        return f"Rasa mirror of {self.bot_id} [{self.language}]"
