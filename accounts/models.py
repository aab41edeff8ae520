"""Accounts (tenants) own bots; back-office users belong to an account with a role; API tokens let
scripts act as a user for 24 hours; competencies are the skills an account's operators are routed by."""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from bots.models import Bot


class Account(models.Model):
    name = models.CharField(_("name"), max_length=200, unique=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("account")
        verbose_name_plural = _("accounts")

    def __str__(self):
        return self.name


class Role(models.TextChoices):
    ADMINISTRATOR = "administrator", _("Administrator")
    EDITOR = "editor", _("Editor")
    OPERATOR = "operator", _("Operator")
    READER = "reader", _("Reader")


class Membership(models.Model):
    """A back-office user's place in an account: which bots they see, what they may do."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership", verbose_name=_("user")
    )
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="members", verbose_name=_("account"))
    role = models.CharField(_("role"), max_length=20, choices=Role.choices, default=Role.READER)
    # A right given to one operator (administrators have it by their role): accounts.permissions grants
    # them livechat.monitor.
    supervisor = models.BooleanField(
        _("live-chat supervisor"),
        default=False,
        help_text=_(
            "Operators only: sees every dialog of the account's monitored bots in the console, reads along, "
            "whispers to the operator, joins and takes over. Administrators supervise by their role."
        ),
    )

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self):
        # A page's title in its reader's language: "claire (Administrateur de Demo)".
        role = Role(self.role).label if self.role in Role.values else self.role
        return gettext("%(user)s (%(role)s of %(account)s)") % {
            "user": self.user,
            "role": role,
            "account": self.account,
        }

    def clean(self):
        if self.supervisor and self.role not in (Role.OPERATOR, Role.ADMINISTRATOR):
            raise ValidationError({"supervisor": _("Only operators are given the supervisor right.")})


# Tokens carry a recognisable prefix so that secret scanners and people can tell what leaked.
TOKEN_PREFIX = "dyt_"


def hash_token(key: str) -> str:
    """Tokens are 256 random bits, so one fast hash is enough: nothing to brute-force offline."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A token from the Authentication servlet: valid TOKEN_LIFETIME_HOURS, revocable, stored hashed."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("user")
    )
    key_hash = models.CharField(max_length=64, unique=True, editable=False, verbose_name=_("key hash"))
    key_start = models.CharField(
        _("token starts with"),
        max_length=16,
        editable=False,
        help_text=_("Enough to recognise a token, not to use it."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    expires_at = models.DateTimeField(_("expires at"), db_index=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    created_from = models.GenericIPAddressField(_("requested from"), null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self):
        return f"{self.key_start}… ({self.user})"

    @classmethod
    def issue(cls, user, *, address: str | None = None, now=None) -> tuple["ApiToken", str]:
        """A new token for `user`; the clear key is returned once and never stored."""
        now = now or timezone.now()
        key = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user,
            key_hash=hash_token(key),
            key_start=key[: len(TOKEN_PREFIX) + 6],
            created_at=now,
            expires_at=now + timedelta(hours=settings.TOKEN_LIFETIME_HOURS),
            created_from=address or None,
        )
        return token, key

    @classmethod
    def find(cls, key: str) -> "ApiToken | None":
        return cls.objects.select_related("user__membership__account").filter(key_hash=hash_token(key)).first()

    def is_expired(self, now=None) -> bool:
        return (now or timezone.now()) >= self.expires_at

    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def is_valid(self, now=None) -> bool:
        return not self.is_revoked() and not self.is_expired(now)

    def revoke(self, now=None):
        if self.revoked_at is None:
            self.revoked_at = now or timezone.now()
            self.save(update_fields=["revoked_at"])

    def mark_used(self, now=None):
        """Remember the last use, at most once a minute, so that using a token is not a write per call."""
        now = now or timezone.now()
        if self.last_used_at is None or now - self.last_used_at > timedelta(minutes=1):
            ApiToken.objects.filter(pk=self.pk).update(last_used_at=now)
            self.last_used_at = now


class Competency(models.Model):
    """A skill of an account's live-chat operators (e.g. "Cards", "Loans"); the talk call's
    `competency` field routes a visitor to operators who have it."""

    account = models.ForeignKey(
        Account, on_delete=models.CASCADE, related_name="competencies", verbose_name=_("account")
    )
    name = models.CharField(_("name"), max_length=100)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("competency")
        verbose_name_plural = _("competencies")
        constraints = [models.UniqueConstraint("account", Lower("name"), name="unique_account_competency")]

    def __str__(self):
        return self.name


class BotApiAccess(Bot):
    """The back office's Preferences > Api > API access page of a bot (servlet-api.md §1.1, §1.3)."""

    class Meta:
        proxy = True
        verbose_name = _("API access")
        verbose_name_plural = _("API access")
