"""The accounts app: accounts (tenants), back-office users and roles, API tokens, competencies."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and access"

    def ready(self):
        from bots.status import checks, volumes

        from . import status

        # The server status: the back office (its URL, its sessions) and the people connected to it.
        checks.register("website", status.website, needs=["database"])
        volumes.register("connectedPeople", status.connected_people)
