"""Dialogs (the chat's contexts) and what happens in them: interactions, feedback, visits,
client errors and GDPR requests."""

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .clock import epoch_ms


class Dialog(models.Model):
    """A conversation; its UUID is the context id the chatbox keeps."""

    uuid = models.UUIDField(_("context ID"), default=uuid.uuid4, unique=True, editable=False)
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="dialogs", verbose_name=_("bot"))
    client_id = models.CharField(max_length=100, blank=True, db_index=True, verbose_name=_("client ID"))
    language = models.CharField(max_length=8, verbose_name=_("language"))
    space = models.CharField(max_length=100, blank=True, verbose_name=_("space"))
    variables = models.JSONField(default=dict, blank=True, verbose_name=_("variables"))
    browser = models.CharField(max_length=200, blank=True, verbose_name=_("browser"))
    os = models.CharField(max_length=200, blank=True, verbose_name=_("OS"))
    user_url = models.CharField(max_length=1000, blank=True, verbose_name=_("user URL"))
    context_type = models.CharField(max_length=20, blank=True, verbose_name=_("context type"))
    solution_used = models.CharField(max_length=20, blank=True, verbose_name=_("solution used"))
    already_came = models.BooleanField(default=False, verbose_name=_("already came"))
    # Qualification-mode dialogs use unpublished knowledge and are left out of analytics.
    qualification_mode = models.BooleanField(default=False, verbose_name=_("qualification mode"))
    first_activity = models.DateTimeField(default=timezone.now, verbose_name=_("first activity"))
    last_activity = models.DateTimeField(default=timezone.now, db_index=True, verbose_name=_("last activity"))
    archived_at = models.DateTimeField(
        null=True, blank=True, help_text=_("Set when the context id is revoked."), verbose_name=_("archived at")
    )
    misunderstood_streak = models.PositiveSmallIntegerField(default=0, verbose_name=_("misunderstood streak"))
    # Decision tree: the node whose children are matched first for the next input.
    current_node = models.ForeignKey(
        "knowledge.KnowledgeItem",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("current node"),
    )

    class Livechat(models.TextChoices):
        BOT = "", _("With the bot")
        QUEUED = "queued", _("Waiting for an operator")
        OPERATOR = "operator", _("With an operator")

    # Set by live chat: while a human holds (or is about to hold) the dialog the bot stays silent.
    livechat = models.CharField(_("live chat"), max_length=10, choices=Livechat.choices, blank=True, default="")
    user_typing = models.BooleanField(default=False, verbose_name=_("user typing"))
    typing_content = models.CharField(max_length=600, blank=True, verbose_name=_("typing content"))
    typing_at = models.DateTimeField(null=True, blank=True, verbose_name=_("typing at"))
    # The dialogs reading page (dialogs/backoffice/): opening a dialog marks it read; someone who fixed the
    # knowledge after reading it marks it corrected.
    read_at = models.DateTimeField(_("read at"), null=True, blank=True)
    read_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("read by"),
    )
    corrected_at = models.DateTimeField(_("corrected at"), null=True, blank=True)
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("corrected by"),
    )

    class Meta:
        ordering = ["-last_activity"]
        verbose_name = _("dialog")
        verbose_name_plural = _("dialogs")
        # The visitor's id (clientId) is personal data, shown to administrators only (product-behaviour.md §4.1).
        permissions = [("view_visitor_id", _("Can see the visitor's id (clientId) and GDPR requests"))]
        indexes = [
            models.Index(fields=["bot", "last_activity"]),
            # The dialogs export walks a bot's dialogs in the order they started (dialogs/bulk/export.py).
            models.Index(fields=["bot", "first_activity", "id"], name="dialogs_bot_started_idx"),
        ]

    def __str__(self):
        return str(self.uuid)

    def is_revoked(self, now=None) -> bool:
        """An id unused for the idle time is revoked (servlet-api.md §3), even before archiving runs."""
        if self.archived_at is not None:
            return True
        if self.livechat:
            return False  # live chat closes its dialogs itself (the visitor-inactivity timer)
        now = now or timezone.now()
        return now - self.last_activity > timedelta(seconds=settings.CONTEXT_IDLE_SECONDS)


class Interaction(models.Model):
    """One user input and its answer inside a dialog."""

    class Feedback(models.TextChoices):
        POSITIVE = "positive", _("Positive")
        NEGATIVE = "negative", _("Negative")
        WITHOUT_ANSWER = "withoutAnswer", _("Without answer")

    dialog = models.ForeignKey(Dialog, on_delete=models.CASCADE, related_name="interactions", verbose_name=_("dialog"))
    # Denormalised from the dialog so that analytics (top knowledge) need no join.
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="+", verbose_name=_("bot"))
    counted = models.BooleanField(
        default=True, help_text=_("Counted in analytics (not qualification mode)."), verbose_name=_("counted")
    )
    created_at = models.DateTimeField(_("server time"), default=timezone.now)
    user_input = models.TextField(blank=True, verbose_name=_("user input"))
    answer = models.TextField(_("answer (HTML)"), blank=True)
    type_response = models.CharField(max_length=60, verbose_name=_("type response"))
    # The item answered while it exists: NULL once it is deleted or an import replaces it, even in the
    # instant of the talk (dialogs/statements.py writes NULL then, never a broken reference).
    knowledge_item = models.ForeignKey(
        "knowledge.KnowledgeItem",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="interactions",
        verbose_name=_("knowledge item"),
    )
    # What the talk answered, kept when the item goes: its id (the knowledgeId the chatbox got) and its
    # title (label, else first formulation). Readers count and name answers by these (ANSWERED_ID).
    answered_id = models.BigIntegerField(_("answered item id"), null=True, blank=True)
    answered_title = models.CharField(_("answered item title"), max_length=1000, blank=True)
    # Items offered as rewordings, for the rewording analytics.
    reworded_items = models.JSONField(default=list, blank=True, verbose_name=_("reworded items"))
    language = models.CharField(max_length=8, verbose_name=_("language"))
    space = models.CharField(max_length=100, blank=True, verbose_name=_("space"))
    origin = models.CharField(
        max_length=60, blank=True, help_text=_("extraParameters type: reword_auto…"), verbose_name=_("origin")
    )
    ask_feedback = models.BooleanField(default=False, verbose_name=_("ask feedback"))
    feedback = models.CharField(max_length=20, choices=Feedback.choices, blank=True, verbose_name=_("feedback"))
    feedback_choice_key = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("feedback choice key"))
    feedback_comment = models.TextField(blank=True, verbose_name=_("feedback comment"))
    human = models.BooleanField(default=False, help_text=_("Written by a human operator."), verbose_name=_("human"))
    payload = models.JSONField(
        default=dict, blank=True, help_text=_("Extra answer fields: sidebar, template…"), verbose_name=_("payload")
    )

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("interaction")
        verbose_name_plural = _("interactions")
        indexes = [
            models.Index(fields=["dialog", "created_at"]),
            models.Index(fields=["bot", "counted", "created_at"]),
        ]

    def __str__(self):
        return f"{self.user_input[:50]} → {self.type_response}"

    @property
    def server_time_ms(self) -> int:
        return epoch_ms(self.created_at)

    @property
    def answered_item_id(self) -> int | None:
        """The id of the item answered, whether it still exists or not."""
        return self.answered_id or self.knowledge_item_id


# The same in queries: rows stored before the kept id existed, or written by hand, have the reference only.
ANSWERED_ID = Coalesce("answered_id", "knowledge_item_id", output_field=models.BigIntegerField())


class Visit(models.Model):
    """A chatbox visit, stored by the welcome call."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="visits", verbose_name=_("bot"))
    context_id = models.CharField(max_length=64, blank=True, verbose_name=_("context ID"))
    language = models.CharField(max_length=8, blank=True, verbose_name=_("language"))
    space = models.CharField(max_length=100, blank=True, verbose_name=_("space"))
    qualification_mode = models.BooleanField(default=False, verbose_name=_("qualification mode"))
    variables = models.JSONField(default=dict, blank=True, verbose_name=_("variables"))
    created_at = models.DateTimeField(default=timezone.now, db_index=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("visit")
        verbose_name_plural = _("visits")

    def __str__(self):
        return f"Visit {self.created_at:%Y-%m-%d %H:%M}"


class ClientError(models.Model):
    """An error the chatbox reported (chat/error)."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="client_errors", verbose_name=_("bot"))
    context_id = models.CharField(max_length=64, blank=True, verbose_name=_("context ID"))
    solution_used = models.CharField(max_length=20, blank=True, verbose_name=_("solution used"))
    error = models.CharField(max_length=500, verbose_name=_("error"))
    message = models.TextField(verbose_name=_("message"))
    stack_trace = models.TextField(blank=True, verbose_name=_("stack trace"))
    js_creation = models.CharField(max_length=100, blank=True, verbose_name=_("JS creation"))
    browser = models.CharField(max_length=200, blank=True, verbose_name=_("browser"))
    os = models.CharField(max_length=200, blank=True, verbose_name=_("OS"))
    user_url = models.CharField(max_length=1000, blank=True, verbose_name=_("user URL"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("client error")
        verbose_name_plural = _("client errors")

    def __str__(self):
        return f"{self.error}: {self.message[:60]}"


class GdprRequest(models.Model):
    """A visitor's request to get or delete their data, processed by an administrator."""

    class Object(models.TextChoices):
        GET = "Get", _("Get my data")
        DELETE = "Delete", _("Delete my data")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Sent")
        DELETED = "deleted", _("Data deleted")
        IGNORED = "ignored", _("Ignored")

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="gdpr_requests", verbose_name=_("bot"))
    client_id = models.CharField(max_length=100, verbose_name=_("client ID"))
    mail = models.EmailField(blank=True, verbose_name=_("mail"))
    object = models.CharField(max_length=10, choices=Object.choices, verbose_name=_("object"))
    language = models.CharField(max_length=8, blank=True, verbose_name=_("language"))
    requester_ip = models.GenericIPAddressField(null=True, blank=True, verbose_name=_("requester IP"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, verbose_name=_("status"))
    reason = models.TextField(
        blank=True, help_text=_("Internal reason (required when ignored)."), verbose_name=_("reason")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("GDPR request")
        verbose_name_plural = _("GDPR requests")

    def __str__(self):
        return f"{self.object} for {self.client_id}"


class DialogPurge(models.Model):
    """One run of the retention purge on one bot (dialogs/bulk/retention.py): what went, and why."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="dialog_purges", verbose_name=_("bot"))
    ran_at = models.DateTimeField(default=timezone.now, verbose_name=_("ran at"))
    retention_days = models.PositiveIntegerField(verbose_name=_("retention days"))
    cutoff = models.DateTimeField(
        help_text=_("Dialogs whose last activity is older than this were deleted."), verbose_name=_("cutoff")
    )
    dialogs = models.PositiveIntegerField(default=0, verbose_name=_("dialogs"))
    interactions = models.PositiveIntegerField(default=0, verbose_name=_("interactions"))
    # Everything else deleted with them, per model label (live chat, visits, client errors…).
    details = models.JSONField(default=dict, blank=True, verbose_name=_("details"))

    class Meta:
        ordering = ["-ran_at"]
        verbose_name = _("dialog purge")
        verbose_name_plural = _("dialog purges")

    def __str__(self):
        return f"Purge of {self.dialogs} dialogs on {self.ran_at:%Y-%m-%d %H:%M}"


# Surveys live with their own package (dialogs/surveys/) and belong to this app.
# What each dialog remembers of its complementary answers (their activation frequency).
from .activations import ComplementActivation  # noqa: E402, F401
from .gdpr.models import GdprAction  # noqa: E402, F401
from .notes import DialogNote  # noqa: E402, F401
from .surveys.models import Survey, SurveyAnswer, SurveyAnswerValue, SurveyField  # noqa: E402, F401
