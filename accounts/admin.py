"""Back office for accounts: accounts and their members, users with their account and role, API tokens
(revocable), competencies, and each bot's "API access" page.

Back-office users are staff scoped to their account: what they may do on a page is Django's model
permissions, which their role's group holds (accounts/roles.py); what they see is their account's rows.
"""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from unfold.admin import ModelAdmin, StackedInline, TabularInline
from unfold.forms import AdminPasswordChangeForm, UserChangeForm, UserCreationForm

from bots.admin_scoping import ScopedChoices, account_id_of

from .models import Account, ApiToken, BotApiAccess, Competency, Membership, Role
from .permissions import account_of, can, role_of

User = get_user_model()


class AccountScopedAdmin(ScopedChoices, ModelAdmin):
    """Objects that belong to an account through `account_path`; a member sees their account's only.
    Rights: Django's model permissions (ModelAdmin's own checks), given by the user's role group."""

    account_path = "account"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        if account_id_of(request.user) is None:  # staff outside every account: none of the rows
            return queryset.none()
        return queryset.filter(**{self.account_path: account_id_of(request.user)})


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

    @admin.display(description=_("Bots"))
    def bot_count(self, account):
        return account.bots.count()

    @admin.display(description=_("Members"))
    def member_count(self, account):
        return account.members.count()


class UserMembershipInline(StackedInline):
    model = Membership
    can_delete = False
    verbose_name_plural = _("Account and role")

    def get_extra(self, request, obj=None, **kwargs):
        return 1 if obj is None or not hasattr(obj, "membership") else 0

    def get_max_num(self, request, obj=None, **kwargs):
        return 1


admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(Group)
class RoleGroupAdmin(GroupAdmin, ModelAdmin):
    """Django's group admin in the back office's theme (superusers only: the role groups are kept in
    sync with accounts/roles.py at every migration)."""


@admin.register(User)
class BackOfficeUserAdmin(ScopedChoices, UserAdmin, ModelAdmin):
    """Django's user admin with the user's account and role on the same page (unfold's forms).

    An account's administrator (auth.*_user permissions, users.add) manages the users of their own
    account only, never a superuser, and never Django's staff, superuser, group or permission flags:
    the role decides those (accounts/roles.py)."""

    form = UserChangeForm
    add_form = UserCreationForm
    change_password_form = AdminPasswordChangeForm

    inlines = [UserMembershipInline]
    list_display = ["username", "email", "account", "role", "is_staff", "is_active", "last_login"]
    list_filter = ["membership__account", "membership__role", "is_staff", "is_active"]
    list_select_related = ["membership__account"]
    member_fieldsets = (
        (None, {"fields": ("username", "password")}),
        (_("Personal info"), {"fields": ("first_name", "last_name", "email")}),
        (_("Access"), {"fields": ("is_active", "last_login", "date_joined")}),
    )

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        account_id = account_id_of(request.user)
        if account_id is None:
            return queryset.none()
        return queryset.filter(membership__account_id=account_id, is_superuser=False)

    def get_fieldsets(self, request, obj=None):
        if obj is None or request.user.is_superuser:
            return super().get_fieldsets(request, obj)
        return self.member_fieldsets

    def get_readonly_fields(self, request, obj=None):
        if request.user.is_superuser:
            return super().get_readonly_fields(request, obj)
        return ["last_login", "date_joined"]

    def get_list_filter(self, request):
        if request.user.is_superuser:
            return super().get_list_filter(request)
        return ["membership__role", "is_active"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        user = form.instance
        if not request.user.is_superuser and not Membership.objects.filter(user=user).exists():
            # A user an administrator adds belongs to their account, a reader until given a role.
            Membership.objects.create(user=user, account_id=account_id_of(request.user), role=Role.READER)

    @admin.display(description=_("Account"), ordering="membership__account__name")
    def account(self, user):
        membership = getattr(user, "membership", None) if hasattr(user, "membership") else None
        return membership.account if membership else "-"

    @admin.display(description=_("Role"), ordering="membership__role")
    def role(self, user):
        role = role_of(user)
        return Role(role).label if role else "-"  # its name in the page's language


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
        if request.user.has_perm("accounts.change_apitoken"):  # administrators: the account's tokens
            return queryset.filter(user__membership__account=account_of(request.user))
        return queryset.filter(user=request.user)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_revoke_permission(self, request):
        # Everyone may revoke the tokens they see (their own; administrators: their account's).
        return self.has_view_permission(request)

    @admin.display(description=_("State"))
    def state(self, token):
        if token.is_revoked():
            return _("revoked")
        return _("expired") if token.is_expired() else _("valid")

    @admin.action(description=_("Revoke the selected tokens"), permissions=["revoke"])
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        message = ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", count) % {"count": count}
        self.message_user(request, message, messages.SUCCESS)


@admin.register(Competency)
class CompetencyAdmin(AccountScopedAdmin):
    list_display = ["name", "account", "created_by", "created_at"]
    list_filter = ["account"]
    search_fields = ["name"]
    readonly_fields = ["created_by", "created_at"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(BotApiAccess)
class ApiAccessAdmin(MadeElsewhere, AccountScopedAdmin):
    """Preferences > Api > API access: each bot's UUID, the API console and the token page."""

    list_display = ["name", "bot_uuid", "account", "links"]
    search_fields = ["name", "uuid"]
    # Over the list: where the token comes from and the console that uses it (servlet-api.md §1, §3).
    list_before_template = "admin/accounts/botapiaccess/links.html"

    def get_queryset(self, request):
        queryset = BotApiAccess.objects.select_related("account")
        if request.user.is_superuser:
            return queryset
        return queryset.filter(account_id=account_id_of(request.user)).exclude(account_id=None)

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="botUUID")
    def bot_uuid(self, bot):
        return format_html("<code>{}</code>", bot.uuid)

    @admin.display(description="")
    def links(self, bot):
        return format_html(
            '<a href="{}">{}</a> · <a href="{}" target="_blank">{}</a>',
            reverse("admin:accounts_botapiaccess_change", args=[bot.pk]),
            _("API access"),
            reverse("api-console"),
            _("API console"),
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if not self.has_view_permission(request):
            raise PermissionDenied
        bot = get_object_or_404(self.get_queryset(request), pk=object_id)
        api_root = request.build_absolute_uri("/servlet/api")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("API access · %(bot)s") % {"bot": bot.name},
            "bot": bot,
            "api_root": api_root,
            "console_url": reverse("api-console"),
            "authentication_url": reverse("authentication-page"),
            "may_edit_preferences": request.user.has_perm("preferences.change_botpreference"),
            # The server status's details are a servlet call: the servlet API's role check says.
            "may_read_status": can(request.user, "status.details"),
        }
        return TemplateResponse(request, "admin/accounts/botapiaccess/api_access.html", context)
