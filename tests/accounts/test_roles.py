"""Roles are Django groups: the migrated database has the four role groups with their row of the rights
table; a membership puts its user in its role's group and makes them staff, a role change moves them,
and the end of a membership takes both away."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command

from accounts.models import Account, Membership, Role
from accounts.roles import GROUP_NAMES, sync_role_groups, wanted_permissions
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db


def codes(group_name: str) -> set[str]:
    group = Group.objects.get(name=group_name)
    return {f"{app}.{code}" for app, code in group.permissions.values_list("content_type__app_label", "codename")}


def test_the_migrated_database_has_the_role_groups_with_their_rights():
    administrators, editors = codes("Administrators"), codes("Editors")
    operators, readers = codes("Operators"), codes("Readers")
    # Everyone reads the knowledge and the dialogs; only editors and administrators change knowledge.
    for group in (administrators, editors, operators, readers):
        assert {"knowledge.view_knowledgeitem", "dialogs.view_dialog", "bots.view_bot"} <= group
    assert {"knowledge.change_knowledgeitem", "knowledge.add_formulation", "dialogs.change_survey"} <= editors
    assert not {perm for perm in operators | readers if perm.startswith("knowledge.") and "view_" not in perm}
    # Preferences: read by all but operators, changed by administrators.
    assert "preferences.view_botpreference" in readers and "preferences.view_botpreference" not in operators
    assert "preferences.change_botpreference" in administrators and "preferences.change_botpreference" not in editors
    # Visitors' data and users: administrators only.
    for perm in ("dialogs.view_gdprrequest", "dialogs.view_visitor_id", "auth.change_user"):
        assert perm in administrators
        assert perm not in editors | operators | readers
    # Live chat: operators take callbacks, administrators also supervise the team.
    assert "livechat.change_callback" in operators and "livechat.change_callback" not in readers
    assert "livechat.change_operator" in administrators and "livechat.change_operator" not in operators
    # Nobody but a superuser touches groups, permissions or sessions.
    for group in (administrators, editors, operators, readers):
        assert not {perm for perm in group if perm.startswith(("auth.", "sessions.", "contenttypes.", "admin."))} - {
            "auth.view_user",
            "auth.add_user",
            "auth.change_user",
        }


def test_every_wanted_permission_exists():
    """A permission named in the matrix but missing here is a typo (or a model that was removed)."""
    existing = set(Permission.objects.values_list("content_type__app_label", "codename"))
    for role in GROUP_NAMES:
        assert wanted_permissions(role) <= existing, role


def test_a_role_group_changed_by_hand_is_put_back_by_the_next_migrate():
    editors = Group.objects.get(name="Editors")
    editors.permissions.add(Permission.objects.get(codename="change_botpreference"))
    editors.permissions.remove(Permission.objects.get(codename="change_knowledgeitem"))
    call_command("migrate", verbosity=0)  # nothing to migrate: the post_migrate hook still runs
    assert "preferences.change_botpreference" not in codes("Editors")
    assert "knowledge.change_knowledgeitem" in codes("Editors")
    assert sync_role_groups()[Role.EDITOR] == len(wanted_permissions(Role.EDITOR))


def test_a_membership_puts_its_user_in_its_role_group_and_makes_them_staff():
    user, _ = make_persona("Account A", Role.EDITOR)
    user.refresh_from_db()
    assert user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == ["Editors"]
    assert user.has_perm("knowledge.change_knowledgeitem")
    assert not user.has_perm("preferences.change_botpreference")


def test_a_role_change_moves_the_user_and_keeps_groups_made_by_hand():
    user, _ = make_persona("Account A", Role.EDITOR)
    by_hand = Group.objects.create(name="Night shift")
    user.groups.add(by_hand)
    membership = Membership.objects.get(user=user)
    membership.role = Role.READER
    membership.save()
    user = get_user_model().objects.get(pk=user.pk)  # a fresh object: no permission cache
    assert set(user.groups.values_list("name", flat=True)) == {"Readers", "Night shift"}
    assert user.has_perm("knowledge.view_knowledgeitem")
    assert not user.has_perm("knowledge.change_knowledgeitem")
    assert user.is_staff


def test_the_end_of_a_membership_ends_back_office_access():
    user, _ = make_persona("Account A", Role.ADMINISTRATOR)
    Membership.objects.get(user=user).delete()
    user = get_user_model().objects.get(pk=user.pk)
    assert not user.is_staff
    assert not user.groups.exists()
    assert not user.has_perm("bots.view_bot")


def test_a_user_added_through_the_api_can_use_the_back_office(client):
    """POST /servlet/api/bousers: the new editor signs in to /admin/ and opens the knowledge list."""
    _, token = make_persona("Account A", Role.ADMINISTRATOR)
    response = client.post(
        "/servlet/api/bousers",
        {"login": "dana", "password": "a-long enough passphrase", "role": "editor"},
        HTTP_AUTHORIZATION=token,
    )
    assert response.status_code == 201
    assert client.login(username="dana", password="a-long enough passphrase")
    assert client.get("/admin/knowledge/knowledgeitem/").status_code == 200
    assert client.get("/admin/knowledge/knowledgeitem/add/").status_code == 200
    assert client.get("/admin/preferences/botpreference/add/").status_code == 403
    assert client.get("/admin/dialogs/gdprrequest/").status_code == 403
    assert Account.objects.get(name="Account A").members.count() == 2


def test_the_migration_gives_existing_members_their_group_and_the_back_office():
    """An existing deployment: members made before roles were groups (no group, not staff)."""
    import importlib
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    user, _ = make_persona("Account A", Role.OPERATOR)
    Group.objects.filter(name__in=GROUP_NAMES.values()).delete()
    get_user_model().objects.filter(pk=user.pk).update(is_staff=False)
    migration = importlib.import_module("accounts.migrations.0004_role_groups")
    migration.make_role_groups(apps, SimpleNamespace(connection=connection))
    user = get_user_model().objects.get(pk=user.pk)
    assert user.is_staff
    assert list(user.groups.values_list("name", flat=True)) == ["Operators"]
    assert user.has_perm("livechat.change_callback") and not user.has_perm("knowledge.change_knowledgeitem")
