"""Bot, its languages and its consultation spaces."""

import secrets
import uuid

from django.db import models
from django.db.models import F
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from .time_zones import default_time_zone, validate_time_zone

# The demo bot that `make run` seeds (knowledge/demo/) has this fixed, documented UUID.
DEMO_BOT_UUID = "d3b0d3b0-0000-4000-8000-000000000001"
DEFAULT_SPACE_NAME = "Defaut"
# Names a client may use for the default space (servlet-api.md spells it both ways).
DEFAULT_SPACE_ALIASES = {"defaut", "default", "défaut", ""}

LANGUAGE_NAMES = {
    "fr": "French",
    "en": "English",
    "nl": "Dutch",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
}


def new_knowledge_version() -> int:
    """A random start, so a bot recreated under a reused primary key never matches a cached snapshot."""
    return secrets.randbits(40)


def language_code(value: str | None) -> str:
    """An ISO code from an ISO code or a language name ("French" → "fr"); "" when unknown."""
    value = (value or "").strip().lower()
    if not value:
        return ""
    if value in LANGUAGE_NAMES:
        return value
    for code, name in LANGUAGE_NAMES.items():
        if value == name.lower() or value.startswith(code + "-") or value.startswith(code + "_"):
            return code
    return ""


class Bot(models.Model):
    uuid = models.UUIDField(_("bot UUID"), default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=200, verbose_name=_("name"))
    account = models.ForeignKey(
        "accounts.Account",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="bots",
        verbose_name=_("account"),
    )
    default_language = models.CharField(max_length=8, default="fr", verbose_name=_("default language"))
    language_detection = models.BooleanField(
        default=True,
        help_text=_("Answer in the language the user writes in, when it is one of the bot's."),
        verbose_name=_("language detection"),
    )
    too_many_misunderstood = models.PositiveSmallIntegerField(
        default=3,
        help_text=_("Misunderstood inputs in a row before the 'too many misunderstood' sentence (0 = never)."),
        verbose_name=_("too many misunderstood"),
    )
    # The back office shows the bot's dialogs, logs and statistics at this zone's times (bots/time_zones.py).
    time_zone = models.CharField(
        max_length=64,
        default=default_time_zone,
        validators=[validate_time_zone],
        help_text=_("Times of this bot's dialogs and statistics are shown in this zone, e.g. Europe/Paris."),
        verbose_name=_("time zone"),
    )
    # Bumped by every knowledge write so every worker process rebuilds its matching index.
    knowledge_version = models.PositiveBigIntegerField(
        default=new_knowledge_version, editable=False, verbose_name=_("knowledge version")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["name"]
        verbose_name = _("bot")
        verbose_name_plural = _("bots")

    def __str__(self):
        return self.name

    def language_codes(self) -> list[str]:
        codes = [lang.code for lang in self.languages.all()]
        return codes or [self.default_language]

    def default_space(self) -> "Space":
        space = self.spaces.filter(is_default=True).first()
        if space is None:
            space, _ = Space.objects.get_or_create(bot=self, name=DEFAULT_SPACE_NAME, defaults={"is_default": True})
        return space

    def find_space(self, name: str | None) -> "Space | None":
        """The space of that name (any case); Default/Defaut/empty mean the default space."""
        name = (name or "").strip()
        if name.lower() in DEFAULT_SPACE_ALIASES:
            return self.default_space()
        return self.spaces.filter(name__iexact=name).first()


def bump_knowledge_version(bot_id):
    """Tells every worker process the bot's knowledge changed: each rebuilds its matching index on its next query."""
    if bot_id:
        Bot.objects.filter(pk=bot_id).update(knowledge_version=F("knowledge_version") + 1)


class BotLanguage(models.Model):
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="languages", verbose_name=_("bot"))
    code = models.CharField(max_length=8, help_text=_("ISO code: fr, en, nl…"), verbose_name=_("code"))
    available = models.BooleanField(default=True, verbose_name=_("available"))

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["bot", "code"], name="unique_bot_language")]
        verbose_name = _("bot language")
        verbose_name_plural = _("bot languages")

    def __str__(self):
        return self.code


class Space(models.Model):
    """A consultation space: the same knowledge with different answers (e.g. logged-in customers)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="spaces", verbose_name=_("bot"))
    name = models.CharField(max_length=100, verbose_name=_("name"))
    is_default = models.BooleanField(default=False, verbose_name=_("is default"))

    class Meta:
        ordering = ["-is_default", "name"]
        constraints = [
            models.UniqueConstraint("bot", Lower("name"), name="unique_bot_space_name"),
            models.UniqueConstraint(
                fields=["bot"], condition=models.Q(is_default=True), name="one_default_space_per_bot"
            ),
        ]
        verbose_name = _("space")
        verbose_name_plural = _("spaces")

    def __str__(self):
        return self.name


# The Log Explicit group's model lives with its group; imported here so Django registers it with the app.
from bots.logs.models import ServerError  # noqa: E402, F401
