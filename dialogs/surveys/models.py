"""Surveys, their ordered fields (choices are child fields) and what visitors answered."""

import uuid

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Survey(models.Model):
    """A questionnaire in one language; its UUID is the surveyId the chatbox fetches and answers."""

    class Kind(models.TextChoices):
        VISITOR = "visitor", _("For visitors")
        OPERATOR = "operator", _("For operators")

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="surveys", verbose_name=_("bot"))
    uuid = models.UUIDField(_("survey id"), default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(
        max_length=200, help_text=_("Internal name, shown in the back office only."), verbose_name=_("name")
    )
    title = models.CharField(
        max_length=300, help_text=_("Shown to the visitor above the survey."), verbose_name=_("title")
    )
    kind = models.CharField(_("type"), max_length=10, choices=Kind.choices, default=Kind.VISITOR)
    language = models.CharField(max_length=8, verbose_name=_("language"))
    submit_value = models.CharField(_("submit button"), max_length=100, default="Envoyer")
    required_message = models.CharField(
        max_length=300, default="Ce champ est obligatoire.", verbose_name=_("required message")
    )
    reword = models.CharField(
        max_length=600,
        blank=True,
        help_text=_("A question the chatbox sends for the visitor once the survey is sent."),
        verbose_name=_("reword"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

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
        TITLE = "TITLE", _("Title (text shown, nothing to answer)")
        TEXT = "TEXT", _("Short text")
        LONG_TEXT = "LONG_TEXT", _("Long text")
        MULTIPLE_CHOICE = "MULTIPLE_CHOICE", _("Choices (radio buttons or check boxes)")
        SELECT = "SELECT", _("Drop-down list")
        RADIO = "RADIO", _("Choice: one of several")
        CHECKBOX = "CHECKBOX", _("Choice: any of several")
        SELECT_OPTION = "SELECT_OPTION", _("List element")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="fields", verbose_name=_("survey"))
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children", verbose_name=_("parent")
    )
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    kind = models.CharField(_("type"), max_length=20, choices=Kind.choices, default=Kind.TEXT)
    label = models.CharField(max_length=500, blank=True, verbose_name=_("label"))
    mandatory = models.BooleanField(default=False, verbose_name=_("mandatory"))
    # MULTIPLE_CHOICE: several options may be checked (CHECKBOX children) or only one (RADIO).
    multiple = models.BooleanField(_("several answers"), default=False)
    max_length = models.PositiveIntegerField(_("maximum length"), null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("survey field")
        verbose_name_plural = _("survey fields")

    def __str__(self):
        return self.label or self.get_kind_display()


class SurveyAnswer(models.Model):
    """One submission of a survey, linked to the dialog it was sent from."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="answers", verbose_name=_("survey"))
    dialog = models.ForeignKey(
        "dialogs.Dialog", on_delete=models.CASCADE, related_name="survey_answers", verbose_name=_("dialog")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    # How it arrived: rest, chatHttp or websocket.
    transport = models.CharField(max_length=20, blank=True, verbose_name=_("transport"))
    operator = models.CharField(
        max_length=200, blank=True, help_text=_("The operator a live-chat survey is about."), verbose_name=_("operator")
    )
    interaction_survey = models.BooleanField(default=False, verbose_name=_("interaction survey"))

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["survey", "created_at"])]
        verbose_name = _("survey answer")
        verbose_name_plural = _("survey answers")

    def __str__(self):
        return f"{self.survey} {self.created_at:%Y-%m-%d %H:%M}"


class SurveyAnswerValue(models.Model):
    """What was answered to one field (a field with several checked options has one row per option)."""

    answer = models.ForeignKey(SurveyAnswer, on_delete=models.CASCADE, related_name="values", verbose_name=_("answer"))
    field = models.ForeignKey(
        SurveyField, null=True, on_delete=models.SET_NULL, related_name="answer_values", verbose_name=_("field")
    )
    # The field's label when answered: results stay readable after the survey is edited.
    label = models.CharField(max_length=500, blank=True, verbose_name=_("label"))
    value = models.TextField(blank=True, verbose_name=_("value"))

    class Meta:
        ordering = ["id"]
        verbose_name = _("survey answer value")
        verbose_name_plural = _("survey answer values")

    def __str__(self):
        return f"{self.label}: {self.value[:60]}"
