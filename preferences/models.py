"""Preferences: name/value pairs of a bot or of an account, and the history of their changes."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext

NAME_MAX_LENGTH = 200
VALUE_MAX_LENGTH = 4000


class Preference(models.Model):
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    value = models.TextField()
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        abstract = True
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} = {self.value[:60]}"


class BotPreference(Preference):
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="preferences")

    class Meta(Preference.Meta):
        constraints = [models.UniqueConstraint(fields=["bot", "name"], name="unique_bot_preference")]


class AccountPreference(Preference):
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="preferences")

    class Meta(Preference.Meta):
        constraints = [models.UniqueConstraint(fields=["account", "name"], name="unique_account_preference")]


class PreferenceChange(models.Model):
    """Who changed which preference, when, from what to what (new_value None: deleted)."""

    class Scope(models.TextChoices):
        BOT = "bot", "Bot"
        ACCOUNT = "account", "Account"

    scope = models.CharField(max_length=10, choices=Scope.choices)
    bot = models.ForeignKey("bots.Bot", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey("accounts.Account", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    old_value = models.TextField(null=True, blank=True)
    new_value = models.TextField(null=True, blank=True)
    changed_at = models.DateTimeField(default=timezone.now, db_index=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Kept as text too: the history must still say who after the user is deleted.
    changed_by_login = models.CharField(max_length=150, blank=True)
    via = models.CharField(max_length=20, default="api", help_text="api or back office")

    class Meta:
        ordering = ["-changed_at", "-id"]
        indexes = [models.Index(fields=["bot", "changed_at"]), models.Index(fields=["account", "changed_at"])]

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
