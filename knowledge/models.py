"""What a bot knows: knowledge items with formulations and answers, tags, matching groups,
global sentences and the image gallery."""

import uuid

from django.db import models
from django.db.models.functions import Lower


class Tag(models.Model):
    """A theme; tags form a tree. Its numeric id is the tagID of the servlet API."""

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="tags")
    name = models.CharField(max_length=200)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children")

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["bot", "parent", "name"], name="unique_tag_name")]

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

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="matching_groups")
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=200)
    category = models.CharField(max_length=200, blank=True)
    members = models.JSONField(default=list, help_text="Words or phrases; {Other group} nests a group.")

    class Meta:
        ordering = ["category", "name"]
        constraints = [models.UniqueConstraint("bot", Lower("name"), name="unique_matching_group_name")]

    def __str__(self):
        return self.name


class KnowledgeItem(models.Model):
    class Kind(models.TextChoices):
        QUESTION = "question", "Answer to a question"
        COMPLEMENTARY = "complementary", "Complementary answer"
        PREDEFINED = "predefined", "Predefined answer"
        EVENT = "event", "Event-triggered"
        SLOT = "slot", "Slot"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"
        DISABLED = "disabled", "Disabled"

    class Position(models.TextChoices):
        BEFORE = "before", "Before the answer"
        AFTER = "after", "After the answer"
        INSTEAD = "instead", "Instead of the answer"

    class Frequency(models.TextChoices):
        """How often a complementary answer is used, counted per dialog (dialogs/complements.py)."""

        ALWAYS = "always", "Every time"
        ONCE_PER_DIALOG = "once_per_dialog", "Once per dialog"
        EVERY_N_INTERACTIONS = "every_n_interactions", "Once every N interactions"
        N_PER_DIALOG = "n_per_dialog", "At most N times per dialog"

    class SlotType(models.TextChoices):
        """The kind of value a slot item understands (dialogs/slots/values.py reads it)."""

        INTEGER = "integer", "Integer"
        DECIMAL = "decimal", "Decimal number"
        DATE = "date", "Date"
        EMAIL = "email", "E-mail address"
        PHONE = "phone", "Phone number"
        TEXT = "text", "Free text"
        LIST = "list", "One of a list"

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="knowledge_items")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.QUESTION)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT, db_index=True)
    label = models.CharField(max_length=300, blank=True, help_text="Name shown in the back office.")
    tag = models.ForeignKey(Tag, null=True, blank=True, on_delete=models.SET_NULL, related_name="items")
    # Decision tree: a child is matched right after its parent's answer; with direct access, from anywhere.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children", verbose_name="parent node"
    )
    direct_access = models.BooleanField(default=False)
    # Curated: offered as a top question while the period has no usage yet (dialogs/topknowledge.py).
    featured = models.BooleanField(
        default=False, help_text="Shown among the top questions while the period has no usage yet."
    )
    position = models.PositiveIntegerField(default=0)
    # Event-triggered: rules the chatbox evaluates ({type, operator, value, param_1, children}).
    event_rules = models.JSONField(default=list, blank=True)
    # Slot: the variable a captured value is stored in, shown in answers as ${capture.<name>}.
    slot_variable = models.CharField(max_length=100, blank=True)
    # Slot filling (dialogs/slots/): a slot item's value type, its allowed values (type "list"), and per
    # language the question the bot asks for it and the sentence that asks again after an invalid value.
    slot_type = models.CharField("slot value type", max_length=10, choices=SlotType.choices, blank=True)
    slot_values = models.JSONField(
        "allowed values", default=list, blank=True, help_text='Type "One of a list": ["Margherita", "Regina"].'
    )
    slot_question = models.JSONField(
        "slot question", default=dict, blank=True, help_text='Per language: {"fr": "Quel jour ?", "en": "Which day?"}'
    )
    slot_invalid = models.JSONField(
        "invalid value sentence",
        default=dict,
        blank=True,
        help_text='Per language, said before the question again: {"fr": "Ce n\'est pas une date."}',
    )
    # An item that needs slots: the slot items' ids in the order they are asked, and per language the
    # introductory sentence said before the first question.
    slots = models.JSONField("slots needed", default=list, blank=True, help_text="Slot item ids, in order: [12, 13]")
    slot_intro = models.JSONField(
        "slot filling introduction", default=dict, blank=True, help_text='Per language: {"fr": "Pour cela, …"}'
    )
    # Complementary answer: where it goes and which knowledge it applies to.
    complement_position = models.CharField(max_length=10, choices=Position.choices, blank=True)
    complement_all = models.BooleanField(default=False, help_text="Applies to the whole knowledge base.")
    complement_tags = models.ManyToManyField(Tag, blank=True, related_name="complements")
    complement_items = models.ManyToManyField(
        "self", symmetrical=False, blank=True, related_name="complemented_by", help_text="Items it applies to."
    )
    complement_frequency = models.CharField(
        "activation", max_length=24, choices=Frequency.choices, default=Frequency.ALWAYS
    )
    complement_n = models.PositiveSmallIntegerField(
        "N", default=1, help_text="The N of 'once every N interactions' and 'at most N times per dialog'."
    )
    # Context conditions on the dialog's variables (knowledge/conditions.py); all must hold.
    complement_conditions = models.JSONField("conditions", default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["bot", "status"])]

    def __str__(self):
        return self.label or f"Knowledge {self.pk}"

    @property
    def matchable(self) -> bool:
        """Kinds a user's question can reach (predefined answers are for operators, events are pushed)."""
        return self.kind in (self.Kind.QUESTION, self.Kind.SLOT)


class Formulation(models.Model):
    item = models.ForeignKey(KnowledgeItem, on_delete=models.CASCADE, related_name="formulations")
    language = models.CharField(max_length=8)
    text = models.CharField(max_length=1000)
    rewordable = models.BooleanField(default=True, help_text="May be offered as a rewording or a suggestion.")
    position = models.PositiveIntegerField(default=0)
    # Computed once by the matcher's model and kept, so a restart or an edit recomputes nothing.
    vector = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["item", "language"])]

    def __str__(self):
        return self.text

    def save(self, *args, **kwargs):
        if self.pk and "update_fields" not in kwargs:
            # The text may have changed: its vector is recomputed on the next index build.
            self.vector = None
        super().save(*args, **kwargs)


class Answer(models.Model):
    """An item's answer in one language and one consultation space."""

    item = models.ForeignKey(KnowledgeItem, on_delete=models.CASCADE, related_name="answers")
    language = models.CharField(max_length=8)
    # A space used by answers cannot be deleted, but deleting the whole bot deletes both.
    space = models.ForeignKey("bots.Space", on_delete=models.RESTRICT, related_name="answers")
    text = models.TextField("answer (HTML)", blank=True)
    template_name = models.CharField(max_length=100, blank=True)
    template_data = models.TextField(blank=True, help_text="JSON given to the template.")
    sidebar = models.JSONField(null=True, blank=True, help_text="{title, content, url, width, height}")
    gui_action = models.CharField(max_length=500, blank=True)
    # The chatbox navigates the host page there (`urlRedirect`); http(s) or a path on the host site.
    url_redirect = models.CharField("URL redirection", max_length=1000, blank=True)
    # Further steps after this answer, shown as a carousel of steps (`nextStepResponse`): [{text, sidebar}].
    steps = models.JSONField(
        default=list, blank=True, help_text='Further steps: [{"text": "<p>…</p>", "sidebar": {…}}]'
    )
    ask_feedback = models.BooleanField(default=False)
    livechat = models.BooleanField(default=False, help_text="Escalates the dialog to a human operator.")
    livechat_competency = models.CharField(
        "live-chat competency",
        max_length=100,
        blank=True,
        help_text="Route the escalated dialog to operators with this competency (empty: any operator).",
    )
    # The chatbox fetches and shows this survey under the answer (its `survey` value is the survey's UUID).
    survey = models.ForeignKey(
        "dialogs.Survey",
        to_field="uuid",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="knowledge_answers",
    )

    class Meta:
        ordering = ["language", "space__name"]
        constraints = [models.UniqueConstraint(fields=["item", "language", "space"], name="unique_answer")]

    def __str__(self):
        return f"{self.item} [{self.language}/{self.space}]"


class GlobalSentence(models.Model):
    """Bot-wide sentences: misunderstood, empty input, welcome, feedback wording…"""

    class Kind(models.TextChoices):
        WELCOME = "welcome", "Welcome"
        MISUNDERSTOOD = "misunderstood", "Misunderstood question"
        TOO_MANY_MISUNDERSTOOD = "too_many_misunderstood", "Too many misunderstood questions"
        EMPTY_INPUT = "empty_input", "Empty question"
        TOO_LONG_INPUT = "too_long_input", "Question too long"
        REWORD_INTRO = "reword_intro", "Introduction to rewordings"
        FEEDBACK_CHOICE_INTRODUCTION = "feedback_choice_introduction", "Feedback: reasons introduction"
        FEEDBACK_CHOICE0 = "feedback_choice0", "Feedback: first reason"
        FEEDBACK_CHOICE1 = "feedback_choice1", "Feedback: second reason"
        FEEDBACK_CHOICE2 = "feedback_choice2", "Feedback: third reason"
        FEEDBACK_COMMENT_LABEL = "feedback_comment_label", "Feedback: comment label"
        FEEDBACK_COMMENT_PLACEHOLDER = "feedback_comment_placeholder", "Feedback: comment placeholder"
        FEEDBACK_COMMENT_SEND = "feedback_comment_send", "Feedback: comment button"
        FEEDBACK_COMMENT_END = "feedback_comment_end", "Feedback: thanks after a comment"
        LINK_CLICKED = "link_clicked", "Link clicked"
        LINK_NEW_TAB = "link_new_tab", "Link opened in a new tab"
        LIVECHAT_NO_OPERATOR = "livechat_no_operator", "Live chat: no operator available"
        LIVECHAT_CONNECTED = "livechat_connected", "Live chat: an operator takes the dialog ({operator})"
        LIVECHAT_JOINED = "livechat_joined", "Live chat: the operator opened the dialog ({operator})"
        LIVECHAT_QUEUED = "livechat_queued", "Live chat: waiting ({position}, {minutes})"
        LIVECHAT_LEFT_QUEUE = "livechat_left_queue", "Live chat: the visitor left the queue"
        LIVECHAT_TRANSFERRED = "livechat_transferred", "Live chat: transferred to another operator ({operator})"
        LIVECHAT_OPERATOR_DISCONNECTED = "livechat_operator_disconnected", "Live chat: the operator was disconnected"
        LIVECHAT_ALMOST_TIMED_OUT = "livechat_almost_timed_out", "Live chat: the dialog closes soon ({seconds})"
        LIVECHAT_AUTO_CLOSE = "livechat_auto_close", "Live chat: closed for inactivity"
        LIVECHAT_END = "livechat_end", "Live chat: ended by the operator ({operator})"
        LIVECHAT_OPERATOR = "livechat_operator", "Live chat: what visitors call an operator who gave no name"
        SLOT_INVALID = "slot_invalid", "Slot filling: invalid value (a slot without its own sentence)"
        SLOT_LEAVE_CONFIRM = "slot_leave_confirm", "Slot filling: leave the questions in progress?"

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="global_sentences")
    language = models.CharField(max_length=8)
    kind = models.CharField(max_length=40, choices=Kind.choices)
    text = models.TextField()

    class Meta:
        ordering = ["language", "kind"]
        constraints = [models.UniqueConstraint(fields=["bot", "language", "kind"], name="unique_global_sentence")]

    def __str__(self):
        return f"{self.get_kind_display()} [{self.language}]"


class GalleryImage(models.Model):
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="gallery")
    name = models.CharField(max_length=255)
    media_type = models.CharField(max_length=100)
    content = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["bot", "name"], name="unique_gallery_image_name")]

    def __str__(self):
        return self.name


# Answer branches (context conditions) live in their own module and belong to this app.
from .branches import AnswerBranch  # noqa: E402, F401

# The Rasa mirror's models live with their servlet group (knowledge/external/) and belong to this app.
from .external.models import ExternalIntent, RasaMirror  # noqa: E402, F401

# The learning page's models live with it (knowledge/learning/) and belong to this app.
from .learning.models import IgnoredGroup, MisunderstoodInput  # noqa: E402, F401
