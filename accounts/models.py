"""Accounts (tenants) own bots; back-office users belong to an account with a role."""

from django.conf import settings
from django.db import models


class Account(models.Model):
    name = models.CharField(max_length=200, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Role(models.TextChoices):
    ADMINISTRATOR = "administrator", "Administrator"
    EDITOR = "editor", "Editor"
    OPERATOR = "operator", "Operator"
    READER = "reader", "Reader"


class Membership(models.Model):
    """A back-office user's place in an account: which bots they see, what they may do."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="members")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.READER)

    def __str__(self):
        return f"{self.user} ({self.role} of {self.account})"
