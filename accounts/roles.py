"""Roles as Django groups: each role (administrator, editor, operator, reader) is a group holding the model
permissions of its row of the rights table, and a membership keeps its user in its role's group and staff.

The rights table (accounts.permissions.ROLE_ACTIONS, README "Roles") says which actions a role has; here
each action becomes the model permissions it needs in the back office. The back office adds four rows
the servlet API has no call for:

    action             administrator  editor  operator  reader
    dialogs.read             x          x        x        x     read dialogs, transcripts, analytics, learning
    dialogs.correct          x          x                       mark a dialog corrected or unread
    gdpr.handle              x                                  visitors' ids (clientId) and GDPR requests
    bots.configure           x                                  the account's name; a bot's name, languages,
                                                                spaces and time zone

Operators read dialogs: they take over conversations and need what the visitor said before.
Scoping to the user's account and bots is the admin bases' job (accounts.admin, bots.admin_scoping).
"""

from django.apps import apps as global_apps
from django.db import transaction
from django.db.models import Q

from .models import Role
from .permissions import ROLE_ACTIONS

VIEW, ADD, CHANGE, DELETE = "view", "add", "change", "delete"
EDIT = (ADD, CHANGE, DELETE)

# The group of each role (names people see on the Groups page; never translated: they are data).
GROUP_NAMES = {
    Role.ADMINISTRATOR: "Administrators",
    Role.EDITOR: "Editors",
    Role.OPERATOR: "Operators",
    Role.READER: "Readers",
}

BACK_OFFICE_ACTIONS = {
    Role.ADMINISTRATOR: {"dialogs.read", "dialogs.correct", "gdpr.handle", "bots.configure"},
    Role.EDITOR: {"dialogs.read", "dialogs.correct"},
    Role.OPERATOR: {"dialogs.read"},
    Role.READER: {"dialogs.read"},
}

KNOWLEDGE_MODELS = [
    "knowledge.knowledgeitem",  # with its slots, complements and event rules (fields of the item)
    "knowledge.formulation",
    "knowledge.answer",
    "knowledge.answerbranch",
    "knowledge.tag",
    "knowledge.matchinggroup",
    "knowledge.globalsentence",
    "knowledge.galleryimage",
    "knowledge.externalintent",
    "dialogs.survey",
    "dialogs.surveyfield",
]


def _each(models, *operations) -> dict[str, tuple[str, ...]]:
    return {model: operations for model in models}


# What each action allows, as {"app.model": operations}, or "app.codename" for a custom permission.
ACTION_PERMISSIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "account.read": {
        "accounts.account": (VIEW,),
        "accounts.competency": (VIEW,),
        "accounts.botapiaccess": (VIEW,),
        "accounts.apitoken": (VIEW,),  # everyone sees their own tokens (administrators: the account's)
        "bots.bot": (VIEW,),
        "bots.botlanguage": (VIEW,),
        "bots.space": (VIEW,),
        "livechat.operator": (VIEW,),
        "livechat.livechatsettings": (VIEW,),
        "livechat.openinghours": (VIEW,),
        "livechat.openingslot": (VIEW,),
    },
    "knowledge.read": {
        **_each(KNOWLEDGE_MODELS, VIEW),
        "knowledge.misunderstoodinput": (VIEW,),  # the learning page (knowledge/learning/)
        "knowledge.ignoredgroup": (VIEW,),
    },
    "knowledge.edit": {**_each(KNOWLEDGE_MODELS, *EDIT), "knowledge.ignoredgroup": (ADD, DELETE)},
    "dialogs.read": {
        "dialogs.dialog": (VIEW,),
        "dialogs.interaction": (VIEW,),
        "dialogs.surveyanswer": (VIEW,),
        "dialogs.surveyanswervalue": (VIEW,),
        "livechat.livechatrequest": (VIEW,),
    },
    "dialogs.correct": {"dialogs.dialog": (CHANGE,)},
    "gdpr.handle": {"dialogs.gdprrequest": (VIEW, CHANGE), "dialogs.gdpraction": (VIEW,)},
    "preferences.read": _each(
        ["preferences.botpreference", "preferences.accountpreference", "preferences.preferencechange"], VIEW
    ),
    "preferences.edit": _each(["preferences.botpreference", "preferences.accountpreference"], *EDIT),
    "status.details": _each(["bots.servererror", "dialogs.clienterror"], VIEW),
    "users.add": {
        "auth.user": (VIEW, ADD, CHANGE),
        "accounts.membership": (VIEW, ADD, CHANGE, DELETE),
        "accounts.apitoken": (CHANGE,),  # revoke the account's tokens
    },
    "competencies.edit": {"accounts.competency": EDIT},
    "livechat.operate": {"livechat.callback": (VIEW, CHANGE), "livechat.livechatrequest": (VIEW,)},
    "livechat.supervise": {
        "livechat.operator": (CHANGE,),
        "livechat.livechatsettings": (ADD, CHANGE),
        **_each(["livechat.openinghours", "livechat.openingslot"], *EDIT),
    },
    "bots.configure": {
        "accounts.account": (CHANGE,),
        "bots.bot": (CHANGE,),
        "bots.botlanguage": EDIT,
        "bots.space": EDIT,
    },
}

# Custom permissions (a model Meta's `permissions`), "app_label.codename" → the actions that grant it.
CUSTOM_PERMISSIONS: dict[str, set[str]] = {
    "dialogs.view_visitor_id": {"gdpr.handle"},
}


def actions_of(role: str) -> set[str]:
    return set(ROLE_ACTIONS.get(role, ())) | BACK_OFFICE_ACTIONS.get(role, set())


def wanted_permissions(role: str) -> set[tuple[str, str]]:
    """(app_label, codename) of every permission the role's group holds."""
    wanted = set()
    actions = actions_of(role)
    for action in actions:
        for model, operations in ACTION_PERMISSIONS.get(action, {}).items():
            app_label, model_name = model.split(".")
            wanted.update((app_label, f"{operation}_{model_name}") for operation in operations)
    for permission, granting in CUSTOM_PERMISSIONS.items():
        if granting & actions:
            wanted.add(tuple(permission.split(".", 1)))
    return wanted


def sync_role_groups(apps=global_apps, using: str = "default") -> dict[str, int]:
    """Make each role's group hold exactly its permissions (those that exist yet: on a fresh database
    the post_migrate hook runs this again once every app's permissions are made). Returns the counts."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    counts = {}
    with transaction.atomic(using=using):
        for role, name in GROUP_NAMES.items():
            group, _ = Group.objects.using(using).get_or_create(name=name)
            wanted = wanted_permissions(role)
            match = Q(pk__in=[])
            for app_label, codename in wanted:
                match |= Q(content_type__app_label=app_label, codename=codename)
            permissions = list(Permission.objects.using(using).filter(match).values_list("pk", flat=True))
            if set(group.permissions.values_list("pk", flat=True)) != set(permissions):
                group.permissions.set(permissions)
            counts[role] = len(permissions)
    return counts


def role_group(role: str):
    from django.contrib.auth.models import Group

    group = Group.objects.filter(name=GROUP_NAMES[role]).first()
    if group is None:  # a database whose groups were deleted by hand: made again, with their permissions
        sync_role_groups()
        group = Group.objects.get(name=GROUP_NAMES[role])
    return group


def sync_user(user, role: str | None) -> None:
    """The user's role groups and staff flag follow their membership (None: no membership any more).
    Groups other than the roles' (made by hand) are left alone."""
    from django.contrib.auth.models import Group

    role_groups = Group.objects.filter(name__in=GROUP_NAMES.values())
    user.groups.remove(*[group for group in role_groups if role is None or group.name != GROUP_NAMES[role]])
    if role is not None:
        user.groups.add(role_group(role))
    staff = role is not None or user.is_superuser
    if user.is_staff != staff:
        user.is_staff = staff
        type(user).objects.filter(pk=user.pk).update(is_staff=staff)
    # Django caches a user's permissions on the object; the next check must see the new groups.
    for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cache, None)


def membership_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        sync_user(instance.user, instance.role)


def membership_deleted(sender, instance, **kwargs):
    user_model = type(instance).user.field.related_model
    user = user_model.objects.filter(pk=instance.user_id).first()
    if user is not None:  # not when the user itself is being deleted
        sync_user(user, None)


def after_migrate(sender, using="default", **kwargs):
    """post_migrate (after auth's own handler made the app's permissions): map them to the roles, so a
    fresh database and a new model's permissions are in the groups without another migration."""
    sync_role_groups(using=using)
