"""Django's admin app with the back office's own site (accounts/backoffice_site.py) as `admin.site`, so
that every ModelAdmin registered anywhere lands on the guarded site (unfold is installed with its
BasicAppConfig, which leaves `admin.site` to this)."""

from django.contrib.admin.apps import AdminConfig


class BackOfficeAdminConfig(AdminConfig):
    default_site = "accounts.backoffice_site.BackOfficeSite"
