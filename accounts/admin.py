"""Back office for accounts: accounts and their members, users with their account and role, API tokens
(revocable), competencies, and each bot's "API access" page.

Back-office users are staff scoped to their account: what they see and may change follows the role
matrix of accounts.permissions, not Django's per-model permissions.
"""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from unfold.admin import ModelAdmin, StackedInline, TabularInline
from unfold.forms import AdminPasswordChangeForm, UserChangeForm, UserCreationForm

from .models import Account, ApiToken, BotApiAccess, Competency, Membership
from .permissions import account_of, can, role_of

User = get_user_model()


def is_member(request) -> bool:
    return request.user.is_active and request.user.is_staff and role_of(request.user) is not None


def may(request, action: str) -> bool:
    return request.user.is_superuser or (is_member(request) and can(request.user, action))


class ReadOnlyAdmin:
    """A list the platform alone writes (logs, change histories): the people allowed `read_action` read
    it; nobody adds, edits or deletes a row by hand."""

    read_action = ""

    def has_module_permission(self, request):
        return may(request, self.read_action)

    def has_view_permission(self, request, obj=None):
        return may(request, self.read_action)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AccountScopedAdmin(ModelAdmin):
    """Objects that belong to an account through `account_path`; a member sees their account's only."""

    account_path = "account"
    read_action = "account.read"
    edit_action = None  # None: read-only for members; superusers may always change

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{self.account_path: account_of(request.user)})

    def has_module_permission(self, request):
        return may(request, self.read_action)

    def has_view_permission(self, request, obj=None):
        return may(request, self.read_action)

    def has_add_permission(self, request):
        return request.user.is_superuser or bool(self.edit_action and may(request, self.edit_action))

    def has_change_permission(self, request, obj=None):
        return self.has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return self.has_add_permission(request)


class MadeElsewhere:
    """Rows the back office shows but never creates or edits (tokens come from the Authentication
    servlet, API access pages are views of bots)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class MembershipInline(TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


class CompetencyInline(TabularInline):
    model = Competency
    extra = 0
    fields = ["name", "created_at", "created_by"]
    readonly_fields = ["created_at", "created_by"]


@admin.register(Account)
class AccountAdmin(AccountScopedAdmin):
    account_path = "pk"
    list_display = ["name", "bot_count", "member_count", "created_at"]
    search_fields = ["name"]
    inlines = [MembershipInline, CompetencyInline]

    def get_queryset(self, request):
        queryset = admin.ModelAdmin.get_queryset(self, request)
        if request.user.is_superuser:
            return queryset
        account = account_of(request.user)
        return queryset.filter(pk=account.pk if account else None)

    @admin.display(description="Bots")
    def bot_count(self, account):
        return account.bots.count()

    @admin.display(description="Members")
    def member_count(self, account):
        return account.members.count()


class UserMembershipInline(StackedInline):
    model = Membership
    can_delete = False
    verbose_name_plural = "Account and role"


admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(Group)
class RoleGroupAdmin(GroupAdmin, ModelAdmin):
    """Django's group admin in the back office's theme."""


@admin.register(User)
class BackOfficeUserAdmin(UserAdmin, ModelAdmin):
    """Django's user admin with the user's account and role on the same page (unfold's forms)."""

    form = UserChangeForm
    add_form = UserCreationForm
    change_password_form = AdminPasswordChangeForm

    inlines = [UserMembershipInline]
    list_display = ["username", "email", "account", "role", "is_staff", "is_active", "last_login"]
    list_filter = ["membership__account", "membership__role", "is_staff", "is_active"]
    list_select_related = ["membership__account"]

    @admin.display(description="Account", ordering="membership__account__name")
    def account(self, user):
        membership = getattr(user, "membership", None) if hasattr(user, "membership") else None
        return membership.account if membership else "-"

    @admin.display(description="Role", ordering="membership__role")
    def role(self, user):
        return role_of(user) or "-"


@admin.register(ApiToken)
class ApiTokenAdmin(MadeElsewhere, AccountScopedAdmin):
    """Tokens are issued by the Authentication servlet; here they are seen and revoked."""

    account_path = "user__membership__account"
    list_display = ["key_start", "user", "created_at", "expires_at", "state", "last_used_at", "created_from"]
    list_filter = ["revoked_at"]
    search_fields = ["user__username", "key_start"]
    list_select_related = ["user"]
    readonly_fields = ["user", "key_start", "created_at", "expires_at", "revoked_at", "created_from", "last_used_at"]
    actions = ["revoke"]

    def get_queryset(self, request):
        queryset = admin.ModelAdmin.get_queryset(self, request)
        if request.user.is_superuser:
            return queryset
        if may(request, "users.add"):  # administrators see and revoke their account's tokens
            return queryset.filter(user__membership__account=account_of(request.user))
        return queryset.filter(user=request.user)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_revoke_permission(self, request):
        return self.has_module_permission(request)

    @admin.display(description="State")
    def state(self, token):
        if token.is_revoked():
            return "revoked"
        return "expired" if token.is_expired() else "valid"

    @admin.action(description="Revoke the selected tokens", permissions=["revoke"])
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{count} token(s) revoked.", messages.SUCCESS)


@admin.register(Competency)
class CompetencyAdmin(AccountScopedAdmin):
    edit_action = "competencies.edit"
    list_display = ["name", "account", "created_by", "created_at"]
    list_filter = ["account"]
    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at"]

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if not request.user.is_superuser and "account" in form.base_fields:
            form.base_fields["account"].queryset = Account.objects.filter(members__user=request.user)
        return form

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(BotApiAccess)
class ApiAccessAdmin(MadeElsewhere, AccountScopedAdmin):
    """Preferences > Api > API access: each bot's UUID, the API console and the token page."""

    list_display = ["name", "bot_uuid", "account", "links"]
    search_fields = ["name", "uuid"]

    def get_queryset(self, request):
        queryset = BotApiAccess.objects.select_related("account")
        if request.user.is_superuser:
            return queryset
        if not is_member(request):
            return queryset.none()
        return queryset.filter(account__members__user=request.user)

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="botUUID")
    def bot_uuid(self, bot):
        return format_html("<code>{}</code>", bot.uuid)

    @admin.display(description="")
    def links(self, bot):
        return format_html(
            '<a href="{}">API access</a> · <a href="{}" target="_blank">API console</a>',
            reverse("admin:accounts_botapiaccess_change", args=[bot.pk]),
            reverse("api-console"),
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        bot = get_object_or_404(self.get_queryset(request), pk=object_id)
        api_root = request.build_absolute_uri("/servlet/api")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"API access · {bot.name}",
            "bot": bot,
            "api_root": api_root,
            "console_url": reverse("api-console"),
            "authentication_url": reverse("authentication-page"),
            "may_edit_preferences": can(request.user, "preferences.edit", bot=bot),
            "may_read_status": can(request.user, "status.details"),
        }
        return TemplateResponse(request, "admin/accounts/botapiaccess/api_access.html", context)
