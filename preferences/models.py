"""Preferences: name/value pairs of a bot or of an account, and the history of their changes."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

NAME_MAX_LENGTH = 200
VALUE_MAX_LENGTH = 4000


class Preference(models.Model):
    name = models.CharField(max_length=NAME_MAX_LENGTH, verbose_name=_("name"))
    value = models.TextField(verbose_name=_("value"))
    updated_at = models.DateTimeField(default=timezone.now, verbose_name=_("updated at"))
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("updated by"),
    )

    class Meta:
        abstract = True
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} = {self.value[:60]}"


class BotPreference(Preference):
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="preferences", verbose_name=_("bot"))

    class Meta(Preference.Meta):
        constraints = [models.UniqueConstraint(fields=["bot", "name"], name="unique_bot_preference")]
        verbose_name = _("bot preference")
        verbose_name_plural = _("bot preferences")


class AccountPreference(Preference):
    account = models.ForeignKey(
        "accounts.Account", on_delete=models.CASCADE, related_name="preferences", verbose_name=_("account")
    )

    class Meta(Preference.Meta):
        constraints = [models.UniqueConstraint(fields=["account", "name"], name="unique_account_preference")]
        verbose_name = _("account preference")
        verbose_name_plural = _("account preferences")


class PreferenceChange(models.Model):
    """Who changed which preference, when, from what to what (new_value None: deleted)."""

    class Scope(models.TextChoices):
        BOT = "bot", _("Bot")
        ACCOUNT = "account", _("Account")

    scope = models.CharField(max_length=10, choices=Scope.choices, verbose_name=_("scope"))
    bot = models.ForeignKey(
        "bots.Bot", null=True, blank=True, on_delete=models.CASCADE, related_name="+", verbose_name=_("bot")
    )
    account = models.ForeignKey(
        "accounts.Account", null=True, blank=True, on_delete=models.CASCADE, related_name="+", verbose_name=_("account")
    )
    name = models.CharField(max_length=NAME_MAX_LENGTH, verbose_name=_("name"))
    old_value = models.TextField(null=True, blank=True, verbose_name=_("old value"))
    new_value = models.TextField(null=True, blank=True, verbose_name=_("new value"))
    changed_at = models.DateTimeField(default=timezone.now, db_index=True, verbose_name=_("changed at"))
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("changed by"),
    )
    # Kept as text too: the history must still say who after the user is deleted.
    changed_by_login = models.CharField(max_length=150, blank=True, verbose_name=_("changed by login"))
    via = models.CharField(max_length=20, default="api", help_text=_("api or back office"), verbose_name=_("via"))

    class Meta:
        ordering = ["-changed_at", "-id"]
        indexes = [models.Index(fields=["bot", "changed_at"]), models.Index(fields=["account", "changed_at"])]
        verbose_name = _("preference change")
        verbose_name_plural = _("preference changes")

    def __str__(self):
        # A page's title in its reader's language.
        who = self.changed_by_login or gettext("the system")
        if self.new_value is None:
            return gettext("%(name)s deleted by %(who)s") % {"name": self.name, "who": who}
        return gettext("%(name)s = %(value)s by %(who)s") % {
            "name": self.name,
            "value": self.new_value[:40],
            "who": who,
        }
