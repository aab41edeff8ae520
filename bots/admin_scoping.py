"""Back-office scoping: a user sees only their account and its bots (superusers see everything); what
they may do on a page is Django's model permissions, which their role's group holds (accounts/roles.py)."""

from django.contrib import admin
from django.db import models
from unfold.admin import ModelAdmin

from . import time_zones
from .models import Bot


class ReadOnlyAdmin:
    """A list the platform alone writes (logs, change histories): those with the model's view permission
    read it; nobody adds, edits or deletes a row by hand."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def bots_of(user):
    if user.is_superuser:
        return Bot.objects.all()
    return Bot.objects.filter(account__members__user=user)


def account_id_of(user):
    membership = getattr(user, "membership", None) if hasattr(user, "membership") else None
    return membership.account_id if membership else None


def scoped_choices(user, queryset):
    """`queryset` (the choices of a foreign key or many-to-many field) cut to the user's account and bots:
    bots, rows of a bot, accounts and rows of an account; other models are left as they are."""
    if user.is_superuser:
        return queryset
    if account_id_of(user) is None:  # staff outside every account: nothing to choose from
        return queryset.none()
    model = queryset.model
    names = {field.name for field in model._meta.get_fields()}
    account_model = Bot._meta.get_field("account").related_model
    if issubclass(model, Bot):
        return queryset.filter(account_id=account_id_of(user))
    if issubclass(model, account_model):
        return queryset.filter(pk=account_id_of(user))
    if "bot" in names:
        return queryset.filter(bot__account_id=account_id_of(user))
    if "account" in names:
        return queryset.filter(account_id=account_id_of(user))
    return queryset


class ScopedChoices:
    """Foreign-key and many-to-many choices of the page and of its inlines are the user's own: another
    account's bot, tag or item is neither offered nor accepted when posted."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if "queryset" not in kwargs:
            kwargs["queryset"] = scoped_choices(request.user, db_field.remote_field.model._default_manager.all())
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if "queryset" not in kwargs:
            kwargs["queryset"] = scoped_choices(request.user, db_field.remote_field.model._default_manager.all())
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def get_inline_instances(self, request, obj=None):
        inlines = super().get_inline_instances(request, obj)
        for inline in inlines:  # instances are made per request: wrapping their methods is local to it
            _scope_inline(inline, request)
        return inlines

    def get_list_filter(self, request):
        """A filter on a relation lists only the values found in the user's rows (never another
        account's bots or tags)."""
        filters = super().get_list_filter(request)
        if request.user.is_superuser:
            return filters
        return [_related_only(self.model, entry) for entry in filters]


def _scope_inline(inline, request):
    for name in ("formfield_for_foreignkey", "formfield_for_manytomany"):
        original = getattr(inline, name)

        def scoped(db_field, request_, original=original, **kwargs):
            if "queryset" not in kwargs:
                manager = db_field.remote_field.model._default_manager
                kwargs["queryset"] = scoped_choices(request_.user, manager.all())
            return original(db_field, request_, **kwargs)

        setattr(inline, name, scoped)


def _related_only(model, entry):
    if not isinstance(entry, str) or "__" in entry:
        return entry
    try:
        field = model._meta.get_field(entry)
    except Exception:  # a filter on something else than a field (a callable's name): as it is
        return entry
    if isinstance(field, (models.ForeignKey, models.ManyToManyField)):
        return (entry, admin.RelatedOnlyFieldListFilter)
    return entry


class BotTimeZonePages:
    """A page of one bot's rows shows its times in that bot's time zone (bots/time_zones.py); a list
    whose bots share one zone shows that one."""

    bot_path = "bot"

    def bot_of(self, obj):
        if self.bot_path == "pk":
            return obj
        value = obj
        for step in self.bot_path.split("__"):
            value = getattr(value, step, None)
        return value

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            time_zones.use_bot_time_zone(request, self.bot_of(obj))
        return obj

    def changelist_view(self, request, extra_context=None):
        chosen = request.GET.get("bot__id__exact", "")  # the list filtered on one bot
        bots = bots_of(request.user)
        time_zones.use_common_time_zone(request, bots.filter(pk=chosen) if chosen and chosen.isdigit() else bots)
        return super().changelist_view(request, extra_context)


class BotScopedAdmin(ScopedChoices, BotTimeZonePages, ModelAdmin):
    """For models that belong to a bot through `bot_path` (e.g. "bot" or "item__bot"; "pk" for bots).
    Rights: Django's model permissions (ModelAdmin's own checks), given by the user's role group."""

    bot_path = "bot"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        if self.bot_path == "pk":
            return queryset.filter(pk__in=bots_of(request.user))
        return queryset.filter(**{f"{self.bot_path}__in": bots_of(request.user)})
