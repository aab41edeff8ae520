"""Back-office scoping: a user sees only the bots of their account (superusers see every bot)."""

from unfold.admin import ModelAdmin

from .models import Bot


def bots_of(user):
    if user.is_superuser:
        return Bot.objects.all()
    return Bot.objects.filter(account__members__user=user)


class BotScopedAdmin(ModelAdmin):
    """For models that belong to a bot through `bot_path` (e.g. "bot" or "item__bot")."""

    bot_path = "bot"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{f"{self.bot_path}__in": bots_of(request.user)})

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "bot":
            kwargs["queryset"] = bots_of(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
