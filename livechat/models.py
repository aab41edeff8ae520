"""Live chat's state: operators and their availability, each bot's live-chat settings, live-chat
requests (the waiting queue and the assignments), the events delivered to visitors, and callbacks."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from bots.time_zones import default_time_zone, validate_time_zone

MAX_DIALOGS_LIMIT = 10
# A visitor's chatbox refreshes its presence every 10 s at most (livechat/visitors.py): a grace time
# shorter than this would drop visitors who are there.
VISITOR_GONE_MIN_SECONDS = 30


def validate_visitor_gone_seconds(value: int) -> None:
    if value and value < VISITOR_GONE_MIN_SECONDS:
        raise ValidationError(
            _("Either 0 (never) or at least %(minimum)d seconds."), params={"minimum": VISITOR_GONE_MIN_SECONDS}
        )


class Operator(models.Model):
    """A back-office user who answers visitors in live chat (role operator or administrator)."""

    class Status(models.TextChoices):
        AVAILABLE = "available", _("Available")
        BUSY = "busy", _("Busy")
        AWAY = "away", _("Away")
        OFFLINE = "offline", _("Offline")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="operator", verbose_name=_("user")
    )
    account = models.ForeignKey(
        "accounts.Account", on_delete=models.CASCADE, related_name="operators", verbose_name=_("account")
    )
    display_name = models.CharField(
        max_length=100,
        blank=True,
        help_text=_("The name visitors see (default: the user's first name or login)."),
        verbose_name=_("display name"),
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.OFFLINE, db_index=True, verbose_name=_("status")
    )
    max_dialogs = models.PositiveSmallIntegerField(
        _("simultaneous dialogs"),
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_DIALOGS_LIMIT)],
        help_text=_("How many live dialogs this operator holds at once (1 to 10)."),
    )
    # Kept equal to the operator's assigned requests by every assignment and release, so that
    # claiming a slot is one conditional UPDATE (no lock, no race between server processes).
    active_dialogs = models.PositiveSmallIntegerField(default=0, editable=False, verbose_name=_("active dialogs"))
    competencies = models.ManyToManyField(
        "accounts.Competency", blank=True, related_name="operators", verbose_name=_("competencies")
    )
    status_changed_at = models.DateTimeField(default=timezone.now, verbose_name=_("status changed at"))
    # Refreshed by the open console; a console that stops refreshing it goes offline after a grace period.
    last_seen_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last seen at"))
    last_assigned_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last assigned at"))

    class Meta:
        ordering = ["account", "display_name"]
        verbose_name = _("operator")
        verbose_name_plural = _("operators")

    def __str__(self):
        return self.name

    @property
    def name(self) -> str:
        return self.display_name or self.user.first_name or self.user.get_username()

    @property
    def has_room(self) -> bool:
        return self.active_dialogs < self.max_dialogs


class LivechatSettings(models.Model):
    """How live chat behaves for one bot (defaults apply to a bot without a row)."""

    bot = models.OneToOneField(
        "bots.Bot", on_delete=models.CASCADE, related_name="livechat_settings", verbose_name=_("bot")
    )
    enabled = models.BooleanField(
        default=True, help_text=_("Answers that escalate hand the dialog to an operator."), verbose_name=_("enabled")
    )
    handover_on_too_many_misunderstood = models.BooleanField(
        default=False,
        help_text=_("Offer an operator instead of the 'too many misunderstood' sentence."),
        verbose_name=_("handover on too many misunderstood"),
    )
    queue_per_operator = models.PositiveSmallIntegerField(
        _("queue places per connected operator"),
        default=3,
        validators=[MaxValueValidator(50)],
        help_text=_("The waiting queue holds this many visitors per connected operator (0: no queue)."),
    )
    queue_timeout_seconds = models.PositiveIntegerField(
        default=900,
        help_text=_("A visitor nobody took after this long is told so and goes back to the bot."),
        verbose_name=_("queue timeout seconds"),
    )
    visitor_timeout_seconds = models.PositiveIntegerField(
        default=300,
        validators=[MinValueValidator(30)],
        help_text=_("A visitor silent this long after the operator's message: the dialog closes."),
        verbose_name=_("visitor timeout seconds"),
    )
    visitor_warning_seconds = models.PositiveIntegerField(
        default=60,
        help_text=_("The visitor is warned (AlmostTimedOut) this long before the dialog closes."),
        verbose_name=_("visitor warning seconds"),
    )
    operator_timeout_seconds = models.PositiveIntegerField(
        default=180,
        validators=[MinValueValidator(30)],
        help_text=_("An operator silent this long after the visitor's message: the dialog goes to another operator."),
        verbose_name=_("operator timeout seconds"),
    )
    # 90 s: a background tab's timers may run only once a minute (Chrome's intensive throttling), so a
    # polling chatbox that is still open can be a minute late.
    visitor_gone_seconds = models.PositiveIntegerField(
        _("visitor gone after (seconds)"),
        default=90,
        validators=[validate_visitor_gone_seconds],
        help_text=_(
            "A queued or live visitor whose chatbox has neither polled nor held its websocket this long has "
            "closed it: they leave the queue, or the live dialog ends, and the operator is told. 0: never "
            "(for integrations that do not poll)."
        ),
    )
    offer_callback = models.BooleanField(
        _("offer a callback when nobody is there"),
        default=True,
        help_text=_("The 'no operator available' answer offers the visitor to be called back."),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("live chat settings")
        verbose_name_plural = _("live chat settings")

    def __str__(self):
        return gettext("Live chat of %(bot)s") % {"bot": self.bot}  # a page's title, in its reader's language


class LivechatRequest(models.Model):
    """One handover of a dialog to a human: queued, then assigned to an operator, then ended."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting in the queue")
        ASSIGNED = "assigned", _("With an operator")
        ENDED = "ended", _("Ended")

    class EndReason(models.TextChoices):
        OPERATOR = "operator", _("Ended by the operator")
        VISITOR_LEFT_QUEUE = "left_queue", _("The visitor left the queue")
        VISITOR_INACTIVE = "visitor_inactive", _("The visitor stopped answering")
        QUEUE_TIMEOUT = "queue_timeout", _("Nobody took it in time")
        NEW_DIALOG = "new_dialog", _("The visitor started a new dialog")
        # The visitor's chatbox was closed (no poll, no socket) for the bot's grace time.
        VISITOR_GONE = "visitor_gone", _("The visitor closed the chatbox")
        # Asked for a human when nobody could take them: recorded ended at once, so missed demand counts.
        NOBODY_AVAILABLE = "nobody_available", _("Nobody was available")
        OUTSIDE_HOURS = "outside_hours", _("Outside opening hours")

    class Waiting(models.TextChoices):
        OPERATOR = "operator", _("The operator")
        VISITOR = "visitor", _("The visitor")

    dialog = models.ForeignKey(
        "dialogs.Dialog", on_delete=models.CASCADE, related_name="livechat_requests", verbose_name=_("dialog")
    )
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="+", verbose_name=_("bot"))
    account = models.ForeignKey(
        "accounts.Account", on_delete=models.CASCADE, related_name="+", verbose_name=_("account")
    )
    competency = models.ForeignKey(
        "accounts.Competency",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("competency"),
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True, verbose_name=_("status")
    )
    operator = models.ForeignKey(
        Operator, null=True, blank=True, on_delete=models.SET_NULL, related_name="requests", verbose_name=_("operator")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    # The queue's order: a dialog sent back to the queue keeps its place.
    queued_at = models.DateTimeField(default=timezone.now, verbose_name=_("queued at"))
    assigned_at = models.DateTimeField(null=True, blank=True, verbose_name=_("assigned at"))
    ended_at = models.DateTimeField(null=True, blank=True, verbose_name=_("ended at"))
    end_reason = models.CharField(max_length=20, choices=EndReason.choices, blank=True, verbose_name=_("end reason"))
    # Who is expected to write next, since when: the timers of both sides read these.
    waiting_on = models.CharField(
        max_length=10, choices=Waiting.choices, default=Waiting.OPERATOR, verbose_name=_("waiting on")
    )
    waiting_since = models.DateTimeField(default=timezone.now, verbose_name=_("waiting since"))
    warned_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When the visitor was warned of the timeout."), verbose_name=_("warned at")
    )
    transfers = models.PositiveSmallIntegerField(default=0, verbose_name=_("transfers"))
    # The operator who sent it to a competency: the queue does not hand it straight back to them.
    passed_on_by = models.ForeignKey(
        Operator, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("passed on by")
    )
    # When the operator holding it first opened it in the console (the visitor is told: OperatorConnected).
    joined_at = models.DateTimeField(null=True, blank=True, verbose_name=_("joined at"))
    queue_position = models.PositiveIntegerField(
        null=True, blank=True, help_text=_("The place the visitor was told."), verbose_name=_("queue position")
    )
    # The last event's time (ms) of this dialog: each event gets a later one (the poll's cursor).
    last_event_ms = models.BigIntegerField(default=0, verbose_name=_("last event (ms)"))
    # When the visitor's chatbox last polled, held its socket or wrote (written at most every few
    # seconds, livechat/visitors.py); the clocks drop a visitor silent for the bot's grace time.
    visitor_seen_at = models.DateTimeField(null=True, blank=True, verbose_name=_("visitor seen at"))

    class Meta:
        verbose_name = _("live-chat handover")
        ordering = ["queued_at", "id"]
        indexes = [models.Index(fields=["account", "status", "queued_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["dialog"],
                condition=models.Q(status__in=["queued", "assigned"]),
                name="one_open_livechat_request_per_dialog",
            )
        ]
        verbose_name_plural = _("live-chat handovers")

    def __str__(self):
        return gettext("Live chat of dialog %(dialog)s (%(status)s)") % {
            "dialog": self.dialog_id,
            "status": self.get_status_display(),
        }


class LivechatEvent(models.Model):
    """Something a visitor in live chat must see, stored before it is pushed: an operator's message or a
    notification. The REST poll reads these after `lastPoll`; the websocket gets each as it is stored."""

    dialog = models.ForeignKey(
        "dialogs.Dialog", on_delete=models.CASCADE, related_name="livechat_events", verbose_name=_("dialog")
    )
    request = models.ForeignKey(
        LivechatRequest, on_delete=models.CASCADE, related_name="events", verbose_name=_("request")
    )
    # Strictly increasing per dialog: the chatbox's pollUpdatedInteractionDate.
    at_ms = models.BigIntegerField(verbose_name=_("at (ms)"))
    frame_type = models.CharField(
        max_length=30, help_text=_("talkResponse (a message) or notification."), verbose_name=_("frame type")
    )
    code = models.CharField(max_length=60, blank=True, verbose_name=_("code"))
    values = models.JSONField(
        default=dict, help_text=_("The values sent to the chatbox, before base64."), verbose_name=_("values")
    )

    class Meta:
        ordering = ["at_ms"]
        constraints = [models.UniqueConstraint(fields=["dialog", "at_ms"], name="unique_livechat_event_time")]
        verbose_name = _("live-chat event")
        verbose_name_plural = _("live-chat events")

    def __str__(self):
        return f"{self.code or self.frame_type} at {self.at_ms}"


class Callback(models.Model):
    """A visitor's (or a telephony integration's) request to be called back by an operator."""

    class Status(models.TextChoices):
        OPEN = "open", _("To call back")
        TAKEN = "taken", _("Taken by an operator")
        CLOSED = "closed", _("Closed")

    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="callbacks", verbose_name=_("bot"))
    dialog = models.ForeignKey(
        "dialogs.Dialog", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("dialog")
    )
    phone = models.CharField(max_length=32, verbose_name=_("phone"))
    name = models.CharField(max_length=100, blank=True, verbose_name=_("name"))
    preferred_time = models.CharField(
        max_length=100, blank=True, help_text=_("As the visitor said it."), verbose_name=_("preferred time")
    )
    reason = models.TextField(blank=True, verbose_name=_("reason"))
    language = models.CharField(max_length=8, blank=True, verbose_name=_("language"))
    source = models.CharField(
        max_length=20, default="chatbox", help_text=_("chatbox or telephony"), verbose_name=_("source")
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True, verbose_name=_("status")
    )
    operator = models.ForeignKey(
        Operator, null=True, blank=True, on_delete=models.SET_NULL, related_name="callbacks", verbose_name=_("operator")
    )
    outcome = models.TextField(
        blank=True, help_text=_("What the operator noted when closing it."), verbose_name=_("outcome")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    taken_at = models.DateTimeField(null=True, blank=True, verbose_name=_("taken at"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("callback")
        verbose_name_plural = _("callbacks")

    def __str__(self):
        return f"Call back {self.phone}"


class ChatUpload(models.Model):
    """A file a visitor sent from the chatbox (/servlet/fileupload), kept with the dialog for the operator.
    Stored under DATA_DIR/uploads/ with a random name: the visitor's file name is only ever shown."""

    dialog = models.ForeignKey(
        "dialogs.Dialog", on_delete=models.CASCADE, related_name="uploads", verbose_name=_("dialog")
    )
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="+", verbose_name=_("bot"))
    # The dialog's line that shows it (the operator's transcript, the visitor's history, the print).
    interaction = models.OneToOneField(
        "dialogs.Interaction",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="upload",
        verbose_name=_("interaction"),
    )
    name = models.CharField(
        max_length=200, help_text=_("The visitor's file name, shown only (never a path)."), verbose_name=_("name")
    )
    stored_name = models.CharField(max_length=80, unique=True, editable=False, verbose_name=_("stored name"))
    content_type = models.CharField(
        max_length=100, help_text=_("Checked against the file's first bytes."), verbose_name=_("content type")
    )
    size = models.PositiveBigIntegerField(help_text=_("Bytes."), verbose_name=_("size"))
    sha256 = models.CharField(max_length=64, verbose_name=_("SHA-256"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("file sent by a visitor")
        verbose_name_plural = _("files sent by visitors")

    def __str__(self):
        return f"{self.name} ({self.size} bytes)"


class OpeningHours(models.Model):
    """When operators answer visitors: for one competency, or (no competency) for the account's whole team.
    A visitor who asks outside them is told nobody is there, with these hours and the callback offer."""

    account = models.ForeignKey(
        "accounts.Account", on_delete=models.CASCADE, related_name="+", verbose_name=_("account")
    )
    competency = models.OneToOneField(
        "accounts.Competency",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="opening_hours",
        verbose_name=_("competency"),
        help_text=_("Empty: the team's hours, for visitors whose competency has no hours of its own."),
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default=default_time_zone, validators=[validate_time_zone]
    )

    class Meta:
        verbose_name = _("opening hours")
        verbose_name_plural = _("opening hours")
        constraints = [
            models.UniqueConstraint(
                fields=["account"], condition=models.Q(competency=None), name="one_account_wide_opening_hours"
            )
        ]

    def __str__(self):
        return str(self.competency) if self.competency_id else str(_("Every competency"))

    def clean(self):
        if self.competency_id and self.account_id and self.competency.account_id != self.account_id:
            raise ValidationError({"competency": _("This competency belongs to another account.")})


class OpeningSlot(models.Model):
    """One opening of a weekday (several a day for a lunch break); it closes the same day."""

    class Weekday(models.IntegerChoices):
        MONDAY = 0, _("Monday")
        TUESDAY = 1, _("Tuesday")
        WEDNESDAY = 2, _("Wednesday")
        THURSDAY = 3, _("Thursday")
        FRIDAY = 4, _("Friday")
        SATURDAY = 5, _("Saturday")
        SUNDAY = 6, _("Sunday")

    hours = models.ForeignKey(OpeningHours, on_delete=models.CASCADE, related_name="slots", verbose_name=_("hours"))
    weekday = models.PositiveSmallIntegerField(_("day"), choices=Weekday.choices)
    opens = models.TimeField(_("opens"))
    closes = models.TimeField(_("closes"))

    class Meta:
        ordering = ["weekday", "opens"]
        verbose_name = _("opening")
        verbose_name_plural = _("openings")

    def __str__(self):
        return f"{self.get_weekday_display()} {self.opens:%H:%M}–{self.closes:%H:%M}"

    def clean(self):
        if self.opens is not None and self.closes is not None and self.closes <= self.opens:
            raise ValidationError(
                {"closes": _("It closes after it opens, the same day (split a night opening in two days).")}
            )
