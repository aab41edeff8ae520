"""What a bot knows: knowledge items with formulations and answers, tags, matching groups,
global sentences and the image gallery."""

import uuid

from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class Tag(models.Model):
    """A theme; tags form a tree. Its numeric id is the tagID of the servlet API."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="tags", verbose_name=_("bot"))
    name = models.CharField(max_length=200, verbose_name=_("name"))
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children", verbose_name=_("parent")
    )

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["bot", "parent", "name"], name="unique_tag_name")]
        verbose_name = _("tag")
        verbose_name_plural = _("tags")

    def __str__(self):
        return self.name

    def path(self) -> str:
        names, tag = [], self
        while tag is not None:
            names.append(tag.name)
            tag = tag.parent
        return "/".join(reversed(names))


class MatchingGroup(models.Model):
    """A named set of equivalent words or phrases. A formulation refers to it as {name}; a member may
    refer to another group the same way, so groups nest."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="matching_groups", verbose_name=_("bot"))
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False, verbose_name=_("UUID"))
    name = models.CharField(max_length=200, verbose_name=_("name"))
    category = models.CharField(max_length=200, blank=True, verbose_name=_("category"))
    members = models.JSONField(
        default=list, help_text=_("Words or phrases; {Other group} nests a group."), verbose_name=_("members")
    )

    class Meta:
        ordering = ["category", "name"]
        constraints = [models.UniqueConstraint("bot", Lower("name"), name="unique_matching_group_name")]
        verbose_name = _("matching group")
        verbose_name_plural = _("matching groups")

    def __str__(self):
        return self.name


class KnowledgeItem(models.Model):
    class Kind(models.TextChoices):
        QUESTION = "question", _("Answer to a question")
        COMPLEMENTARY = "complementary", _("Complementary answer")
        PREDEFINED = "predefined", _("Predefined answer")
        EVENT = "event", _("Event-triggered")
        SLOT = "slot", _("Slot")

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        PUBLISHED = "published", _("Published")
        DISABLED = "disabled", _("Disabled")

    class Position(models.TextChoices):
        BEFORE = "before", _("Before the answer")
        AFTER = "after", _("After the answer")
        INSTEAD = "instead", _("Instead of the answer")

    class Frequency(models.TextChoices):
        """How often a complementary answer is used, counted per dialog (dialogs/complements.py)."""

        ALWAYS = "always", _("Every time")
        ONCE_PER_DIALOG = "once_per_dialog", _("Once per dialog")
        EVERY_N_INTERACTIONS = "every_n_interactions", _("Once every N interactions")
        N_PER_DIALOG = "n_per_dialog", _("At most N times per dialog")

    class SlotType(models.TextChoices):
        """The kind of value a slot item understands (dialogs/slots/values.py reads it)."""

        INTEGER = "integer", _("Integer")
        DECIMAL = "decimal", _("Decimal number")
        DATE = "date", _("Date")
        EMAIL = "email", _("E-mail address")
        PHONE = "phone", _("Phone number")
        TEXT = "text", _("Free text")
        LIST = "list", _("One of a list")

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="knowledge_items", verbose_name=_("bot"))
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.QUESTION, verbose_name=_("kind"))
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.DRAFT, db_index=True, verbose_name=_("status")
    )
    label = models.CharField(
        max_length=300, blank=True, help_text=_("Name shown in the back office."), verbose_name=_("label")
    )
    tag = models.ForeignKey(
        Tag, null=True, blank=True, on_delete=models.SET_NULL, related_name="items", verbose_name=_("tag")
    )
    # Decision tree: a child is matched right after its parent's answer; with direct access, from anywhere.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children", verbose_name=_("parent node")
    )
    direct_access = models.BooleanField(default=False, verbose_name=_("direct access"))
    # Curated: offered as a top question while the period has no usage yet (dialogs/topknowledge.py).
    featured = models.BooleanField(
        default=False,
        help_text=_("Shown among the top questions while the period has no usage yet."),
        verbose_name=_("featured"),
    )
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    # Event-triggered: rules the chatbox evaluates ({type, operator, value, param_1, children}).
    event_rules = models.JSONField(default=list, blank=True, verbose_name=_("event rules"))
    # Slot: the variable a captured value is stored in, shown in answers as ${capture.<name>}.
    slot_variable = models.CharField(max_length=100, blank=True, verbose_name=_("slot variable"))
    # Slot filling (dialogs/slots/): a slot item's value type, its allowed values (type "list"), and per
    # language the question the bot asks for it and the sentence that asks again after an invalid value.
    slot_type = models.CharField(_("slot value type"), max_length=10, choices=SlotType.choices, blank=True)
    slot_values = models.JSONField(
        _("allowed values"), default=list, blank=True, help_text=_('Type "One of a list": ["Margherita", "Regina"].')
    )
    slot_question = models.JSONField(
        _("slot question"),
        default=dict,
        blank=True,
        help_text=_('Per language: {"fr": "Quel jour ?", "en": "Which day?"}'),
    )
    slot_invalid = models.JSONField(
        _("invalid value sentence"),
        default=dict,
        blank=True,
        help_text=_('Per language, said before the question again: {"fr": "Ce n\'est pas une date."}'),
    )
    # An item that needs slots: the slot items' ids in the order they are asked, and per language the
    # introductory sentence said before the first question.
    slots = models.JSONField(
        _("slots needed"), default=list, blank=True, help_text=_("Slot item ids, in order: [12, 13]")
    )
    slot_intro = models.JSONField(
        _("slot filling introduction"), default=dict, blank=True, help_text=_('Per language: {"fr": "Pour cela, …"}')
    )
    # Complementary answer: where it goes and which knowledge it applies to.
    complement_position = models.CharField(
        max_length=10, choices=Position.choices, blank=True, verbose_name=_("complement position")
    )
    complement_all = models.BooleanField(
        default=False, help_text=_("Applies to the whole knowledge base."), verbose_name=_("complement all")
    )
    complement_tags = models.ManyToManyField(
        Tag, blank=True, related_name="complements", verbose_name=_("complement tags")
    )
    complement_items = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="complemented_by",
        help_text=_("Items it applies to."),
        verbose_name=_("complement items"),
    )
    complement_frequency = models.CharField(
        _("activation"), max_length=24, choices=Frequency.choices, default=Frequency.ALWAYS
    )
    complement_n = models.PositiveSmallIntegerField(
        _("N"), default=1, help_text=_("The N of 'once every N interactions' and 'at most N times per dialog'.")
    )
    # Context conditions on the dialog's variables (knowledge/conditions.py); all must hold.
    complement_conditions = models.JSONField(_("conditions"), default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["bot", "status"])]
        verbose_name = _("knowledge item")
        verbose_name_plural = _("knowledge items")

    def __str__(self):
        return self.label or f"Knowledge {self.pk}"

    @property
    def matchable(self) -> bool:
        """Kinds a user's question can reach (predefined answers are for operators, events are pushed)."""
        return self.kind in (self.Kind.QUESTION, self.Kind.SLOT)


class Formulation(models.Model):
    item = models.ForeignKey(
        KnowledgeItem, on_delete=models.CASCADE, related_name="formulations", verbose_name=_("item")
    )
    language = models.CharField(max_length=8, verbose_name=_("language"))
    text = models.CharField(max_length=1000, verbose_name=_("text"))
    rewordable = models.BooleanField(
        default=True, help_text=_("May be offered as a rewording or a suggestion."), verbose_name=_("rewordable")
    )
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    # Computed once by the matcher's model and kept, so a restart or an edit recomputes nothing.
    vector = models.BinaryField(null=True, blank=True, editable=False, verbose_name=_("vector"))

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["item", "language"])]
        verbose_name = _("formulation")
        verbose_name_plural = _("formulations")

    def __str__(self):
        return self.text

    def save(self, *args, **kwargs):
        if self.pk and "update_fields" not in kwargs:
            # The text may have changed: its vector is recomputed on the next index build.
            self.vector = None
        super().save(*args, **kwargs)


class Answer(models.Model):
    """An item's answer in one language and one consultation space."""

    item = models.ForeignKey(KnowledgeItem, on_delete=models.CASCADE, related_name="answers", verbose_name=_("item"))
    language = models.CharField(max_length=8, verbose_name=_("language"))
    # A space used by answers cannot be deleted, but deleting the whole bot deletes both.
    space = models.ForeignKey("bots.Space", on_delete=models.RESTRICT, related_name="answers", verbose_name=_("space"))
    text = models.TextField(_("answer (HTML)"), blank=True)
    template_name = models.CharField(max_length=100, blank=True, verbose_name=_("template name"))
    template_data = models.TextField(
        blank=True, help_text=_("JSON given to the template."), verbose_name=_("template data")
    )
    sidebar = models.JSONField(
        null=True, blank=True, help_text=_("{title, content, url, width, height}"), verbose_name=_("sidebar")
    )
    gui_action = models.CharField(max_length=500, blank=True, verbose_name=_("GUI action"))
    # The chatbox navigates the host page there (`urlRedirect`); http(s) or a path on the host site.
    url_redirect = models.CharField(_("URL redirection"), max_length=1000, blank=True)
    # Further steps after this answer, shown as a carousel of steps (`nextStepResponse`): [{text, sidebar}].
    steps = models.JSONField(
        default=list,
        blank=True,
        help_text=_('Further steps: [{"text": "<p>…</p>", "sidebar": {…}}]'),
        verbose_name=_("steps"),
    )
    ask_feedback = models.BooleanField(default=False, verbose_name=_("ask feedback"))
    livechat = models.BooleanField(
        default=False, help_text=_("Escalates the dialog to a human operator."), verbose_name=_("livechat")
    )
    livechat_competency = models.CharField(
        _("live-chat competency"),
        max_length=100,
        blank=True,
        help_text=_("Route the escalated dialog to operators with this competency (empty: any operator)."),
    )
    # The chatbox fetches and shows this survey under the answer (its `survey` value is the survey's UUID).
    survey = models.ForeignKey(
        "dialogs.Survey",
        to_field="uuid",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="knowledge_answers",
        verbose_name=_("survey"),
    )

    class Meta:
        ordering = ["language", "space__name"]
        constraints = [models.UniqueConstraint(fields=["item", "language", "space"], name="unique_answer")]
        verbose_name = _("answer")
        verbose_name_plural = _("answers")

    def __str__(self):
        return f"{self.item} [{self.language}/{self.space}]"


class GlobalSentence(models.Model):
    """Bot-wide sentences: misunderstood, empty input, welcome, feedback wording…"""

    class Kind(models.TextChoices):
        WELCOME = "welcome", _("Welcome")
        MISUNDERSTOOD = "misunderstood", _("Misunderstood question")
        TOO_MANY_MISUNDERSTOOD = "too_many_misunderstood", _("Too many misunderstood questions")
        EMPTY_INPUT = "empty_input", _("Empty question")
        TOO_LONG_INPUT = "too_long_input", _("Question too long")
        REWORD_INTRO = "reword_intro", _("Introduction to rewordings")
        FEEDBACK_CHOICE_INTRODUCTION = "feedback_choice_introduction", _("Feedback: reasons introduction")
        FEEDBACK_CHOICE0 = "feedback_choice0", _("Feedback: first reason")
        FEEDBACK_CHOICE1 = "feedback_choice1", _("Feedback: second reason")
        FEEDBACK_CHOICE2 = "feedback_choice2", _("Feedback: third reason")
        FEEDBACK_COMMENT_LABEL = "feedback_comment_label", _("Feedback: comment label")
        FEEDBACK_COMMENT_PLACEHOLDER = "feedback_comment_placeholder", _("Feedback: comment placeholder")
        FEEDBACK_COMMENT_SEND = "feedback_comment_send", _("Feedback: comment button")
        FEEDBACK_COMMENT_END = "feedback_comment_end", _("Feedback: thanks after a comment")
        LINK_CLICKED = "link_clicked", _("Link clicked")
        LINK_NEW_TAB = "link_new_tab", _("Link opened in a new tab")
        LIVECHAT_NO_OPERATOR = "livechat_no_operator", _("Live chat: no operator available")
        LIVECHAT_CONNECTED = "livechat_connected", _("Live chat: an operator takes the dialog ({operator})")
        LIVECHAT_JOINED = "livechat_joined", _("Live chat: the operator opened the dialog ({operator})")
        LIVECHAT_QUEUED = "livechat_queued", _("Live chat: waiting ({position}, {minutes})")
        LIVECHAT_LEFT_QUEUE = "livechat_left_queue", _("Live chat: the visitor left the queue")
        LIVECHAT_TRANSFERRED = "livechat_transferred", _("Live chat: transferred to another operator ({operator})")
        LIVECHAT_OPERATOR_DISCONNECTED = "livechat_operator_disconnected", _("Live chat: the operator was disconnected")
        LIVECHAT_ALMOST_TIMED_OUT = "livechat_almost_timed_out", _("Live chat: the dialog closes soon ({seconds})")
        LIVECHAT_AUTO_CLOSE = "livechat_auto_close", _("Live chat: closed for inactivity")
        LIVECHAT_END = "livechat_end", _("Live chat: ended by the operator ({operator})")
        LIVECHAT_OPERATOR = "livechat_operator", _("Live chat: what visitors call an operator who gave no name")
        SLOT_INVALID = "slot_invalid", _("Slot filling: invalid value (a slot without its own sentence)")
        SLOT_LEAVE_CONFIRM = "slot_leave_confirm", _("Slot filling: leave the questions in progress?")

    bot = models.ForeignKey(
        "bots.Bot", on_delete=models.CASCADE, related_name="global_sentences", verbose_name=_("bot")
    )
    language = models.CharField(max_length=8, verbose_name=_("language"))
    kind = models.CharField(max_length=40, choices=Kind.choices, verbose_name=_("kind"))
    text = models.TextField(verbose_name=_("text"))

    class Meta:
        ordering = ["language", "kind"]
        constraints = [models.UniqueConstraint(fields=["bot", "language", "kind"], name="unique_global_sentence")]
        verbose_name = _("global sentence")
        verbose_name_plural = _("global sentences")

    def __str__(self):
        return f"{self.get_kind_display()} [{self.language}]"


class GalleryImage(models.Model):
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="gallery", verbose_name=_("bot"))
    name = models.CharField(max_length=255, verbose_name=_("name"))
    media_type = models.CharField(max_length=100, verbose_name=_("media type"))
    content = models.BinaryField(verbose_name=_("content"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["bot", "name"], name="unique_gallery_image_name")]
        verbose_name = _("gallery image")
        verbose_name_plural = _("gallery images")

    def __str__(self):
        return self.name


# Answer branches (context conditions) live in their own module and belong to this app.
from .branches import AnswerBranch  # noqa: E402, F401

# The Rasa mirror's models live with their servlet group (knowledge/external/) and belong to this app.
from .external.models import ExternalIntent, RasaMirror  # noqa: E402, F401

# The learning page's models live with it (knowledge/learning/) and belong to this app.
from .learning.models import IgnoredGroup, MisunderstoodInput  # noqa: E402, F401
