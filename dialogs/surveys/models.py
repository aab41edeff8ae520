"""Surveys, their ordered fields (choices are child fields) and what visitors answered."""

import uuid

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Survey(models.Model):
    """A questionnaire in one language; its UUID is the surveyId the chatbox fetches and answers."""

    class Kind(models.TextChoices):
        VISITOR = "visitor", "For visitors"
        OPERATOR = "operator", "For operators"

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="surveys")
    uuid = models.UUIDField("survey id", default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=200, help_text="Internal name, shown in the back office only.")
    title = models.CharField(max_length=300, help_text="Shown to the visitor above the survey.")
    kind = models.CharField("type", max_length=10, choices=Kind.choices, default=Kind.VISITOR)
    language = models.CharField(max_length=8)
    submit_value = models.CharField("submit button", max_length=100, default="Envoyer")
    required_message = models.CharField(max_length=300, default="Ce champ est obligatoire.")
    reword = models.CharField(
        max_length=600, blank=True, help_text="A question the chatbox sends for the visitor once the survey is sent."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "language"]
        verbose_name = _("survey")
        verbose_name_plural = _("surveys")
        constraints = [models.UniqueConstraint(fields=["bot", "name", "language"], name="unique_survey_name")]

    def __str__(self):
        return f"{self.name} [{self.language}]"


class SurveyField(models.Model):
    """One field of a survey, in order; choices (RADIO, CHECKBOX, SELECT_OPTION) are children of their
    MULTIPLE_CHOICE or SELECT field."""

    class Kind(models.TextChoices):
        TITLE = "TITLE", "Title (text shown, nothing to answer)"
        TEXT = "TEXT", "Short text"
        LONG_TEXT = "LONG_TEXT", "Long text"
        MULTIPLE_CHOICE = "MULTIPLE_CHOICE", "Choices (radio buttons or check boxes)"
        SELECT = "SELECT", "Drop-down list"
        RADIO = "RADIO", "Choice: one of several"
        CHECKBOX = "CHECKBOX", "Choice: any of several"
        SELECT_OPTION = "SELECT_OPTION", "List element"

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="fields")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children")
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField("type", max_length=20, choices=Kind.choices, default=Kind.TEXT)
    label = models.CharField(max_length=500, blank=True)
    mandatory = models.BooleanField(default=False)
    # MULTIPLE_CHOICE: several options may be checked (CHECKBOX children) or only one (RADIO).
    multiple = models.BooleanField("several answers", default=False)
    max_length = models.PositiveIntegerField("maximum length", null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self):
        return self.label or self.get_kind_display()


class SurveyAnswer(models.Model):
    """One submission of a survey, linked to the dialog it was sent from."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="answers")
    dialog = models.ForeignKey("dialogs.Dialog", on_delete=models.CASCADE, related_name="survey_answers")
    created_at = models.DateTimeField(default=timezone.now)
    # How it arrived: rest, chatHttp or websocket.
    transport = models.CharField(max_length=20, blank=True)
    operator = models.CharField(max_length=200, blank=True, help_text="The operator a live-chat survey is about.")
    interaction_survey = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["survey", "created_at"])]

    def __str__(self):
        return f"{self.survey} {self.created_at:%Y-%m-%d %H:%M}"


class SurveyAnswerValue(models.Model):
    """What was answered to one field (a field with several checked options has one row per option)."""

    answer = models.ForeignKey(SurveyAnswer, on_delete=models.CASCADE, related_name="values")
    field = models.ForeignKey(SurveyField, null=True, on_delete=models.SET_NULL, related_name="answer_values")
    # The field's label when answered: results stay readable after the survey is edited.
    label = models.CharField(max_length=500, blank=True)
    value = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.label}: {self.value[:60]}"
