"""The accounts app: accounts (tenants), back-office users and roles, API tokens, competencies."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and access"
