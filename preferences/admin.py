"""Back office for preferences: a bot's and an account's preferences, checked by the registry and
recorded in the history like the API's changes, and the read-only history itself."""

from django import forms
from django.contrib import admin
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from unfold.admin import ModelAdmin

from accounts.models import Account
from accounts.permissions import account_of
from bots.admin_scoping import ReadOnlyAdmin, ScopedChoices
from bots.models import Bot
from bots.servlet.errors import ServletError

from . import meaning, services
from .models import AccountPreference, BotPreference, PreferenceChange

VIA = "back office"


class PreferenceForm(forms.ModelForm):
    """Runs the registry's check so that the back office stores what the API would."""

    def owner(self):
        raise NotImplementedError

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            name = services.clean_name(cleaned.get("name", ""))
            cleaned["value"] = services.clean_value(self.owner(), name, cleaned.get("value", ""))
        except ServletError as error:
            raise forms.ValidationError(error.message) from None
        return cleaned


class BotPreferenceForm(PreferenceForm):
    class Meta:
        model = BotPreference
        fields = ["bot", "name", "value"]

    def owner(self):
        return services.Owner(bot=self.cleaned_data["bot"])


class AccountPreferenceForm(PreferenceForm):
    class Meta:
        model = AccountPreference
        fields = ["account", "name", "value"]

    def owner(self):
        return services.Owner(account=self.cleaned_data["account"])


class PreferenceAdmin(ScopedChoices, ModelAdmin):
    """Rights: the preferences models' Django permissions (preferences.read / .edit in accounts/roles.py)."""

    list_display = ["name", "value_shown", "updated_by", "updated_at"]
    search_fields = ["name", "value"]
    readonly_fields = ["stands_for", "updated_by", "updated_at"]

    @admin.display(description=_("Value"), ordering="value")
    def value_shown(self, preference):
        return meaning.value_with_meaning(preference.value, meaning.owner_bots(preference))

    @admin.display(description=_("Stands for"))
    def stands_for(self, preference):
        """A UUID value's object, by name (the value itself stays the UUID, as the API reads it)."""
        return meaning.stands_for(preference.value, meaning.owner_bots(preference)) or "—"

    def save_model(self, request, obj, form, change):
        if change and "name" in form.changed_data:
            services.delete_preference(self.owner_of(obj), form.initial["name"], user=request.user, via=VIA)
        preference, _ = services.set_preference(self.owner_of(obj), obj.name, obj.value, user=request.user, via=VIA)
        obj.pk = preference.pk

    def delete_model(self, request, obj):
        services.delete_preference(self.owner_of(obj), obj.name, user=request.user, via=VIA)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)


@admin.register(BotPreference)
class BotPreferenceAdmin(PreferenceAdmin):
    form = BotPreferenceForm
    list_display = ["bot", *PreferenceAdmin.list_display]
    list_filter = ["bot"]
    list_select_related = ["bot", "updated_by"]

    def owner_of(self, obj):
        return services.Owner(bot=obj.bot)

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else queryset.filter(bot__account=account_of(request.user))

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "bot" and not request.user.is_superuser:
            kwargs["queryset"] = Bot.objects.filter(account=account_of(request.user))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(AccountPreference)
class AccountPreferenceAdmin(PreferenceAdmin):
    form = AccountPreferenceForm
    list_display = ["account", *PreferenceAdmin.list_display]
    list_filter = ["account"]
    list_select_related = ["account", "updated_by"]

    def owner_of(self, obj):
        return services.Owner(account=obj.account)

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else queryset.filter(account=account_of(request.user))

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "account" and not request.user.is_superuser:
            kwargs["queryset"] = Account.objects.filter(members__user=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(PreferenceChange)
class PreferenceChangeAdmin(ReadOnlyAdmin, ScopedChoices, ModelAdmin):
    list_display = ["changed_at", "scope", "owner", "name", "old_shown", "new_shown", "changed_by_login", "via"]
    list_filter = ["scope", "via"]
    search_fields = ["name", "changed_by_login"]
    list_select_related = ["bot", "account"]

    def owner(self, change):
        return change.bot or change.account

    @admin.display(description=_("Old value"))
    def old_shown(self, change):
        return meaning.value_with_meaning(change.old_value, meaning.owner_bots(change))

    @admin.display(description=_("New value"))
    def new_shown(self, change):
        return meaning.value_with_meaning(change.new_value, meaning.owner_bots(change))

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        account = account_of(request.user)
        return queryset.filter(Q(bot__account=account) | Q(account=account))
