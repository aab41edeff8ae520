"""Roles become Django groups: the four role groups with their permissions (accounts/roles.py), and every
existing member put in their role's group and made staff, so they can sign in to the back office."""

from django.db import migrations


def make_role_groups(apps, schema_editor):
    from accounts.roles import GROUP_NAMES, sync_role_groups

    using = schema_editor.connection.alias
    # Permissions of models made after this migration do not exist yet on a fresh database: the
    # post_migrate hook (accounts.apps) maps them once every migration has run.
    sync_role_groups(apps, using=using)
    Group = apps.get_model("auth", "Group")
    Membership = apps.get_model("accounts", "Membership")
    User = apps.get_model("auth", "User")
    groups = {role: Group.objects.using(using).get(name=name) for role, name in GROUP_NAMES.items()}
    for membership in Membership.objects.using(using).select_related("user"):
        group = groups.get(membership.role)
        if group is not None:
            membership.user.groups.add(group)
    User.objects.using(using).filter(membership__isnull=False, is_staff=False).update(is_staff=True)


def remove_role_groups(apps, schema_editor):
    from accounts.roles import GROUP_NAMES

    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(
        name__in=GROUP_NAMES.values()
    ).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_botapiaccess"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(make_role_groups, remove_role_groups)]
