"""The accounts app: accounts (tenants), back-office users and roles, API tokens, competencies."""

from django.apps import AppConfig
from django.db.models.signals import post_delete, post_migrate, post_save
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts and access")

    def ready(self):
        from bots.status import checks, volumes

        from . import roles, status
        from .models import Membership

        # The server status: the back office (its URL, its sessions) and the people connected to it.
        checks.register("website", status.website, needs=["database"])
        volumes.register("connectedPeople", status.connected_people)
        # Roles are groups of Django permissions (accounts/roles.py); a membership keeps its user in one.
        post_save.connect(roles.membership_saved, sender=Membership, dispatch_uid="accounts.roles.saved")
        post_delete.connect(roles.membership_deleted, sender=Membership, dispatch_uid="accounts.roles.deleted")
        post_migrate.connect(roles.after_migrate, dispatch_uid="accounts.roles.after_migrate")
