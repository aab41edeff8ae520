"""The knowledge list's filters: by space and by language, offered from the bots the user sees."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from bots.admin_scoping import bots_of
from bots.language_labels import language_label
from bots.models import BotLanguage, Space


class LanguageFilter(admin.SimpleListFilter):
    """Items with a formulation or an answer in that language."""

    title = _("language")
    parameter_name = "language"

    def lookups(self, request, model_admin):
        codes = BotLanguage.objects.filter(bot__in=bots_of(request.user)).values_list("code", flat=True)
        return [(code, language_label(code)) for code in sorted(set(codes))]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        code = self.value()
        return (queryset.filter(formulations__language=code) | queryset.filter(answers__language=code)).distinct()


class SpaceFilter(admin.SimpleListFilter):
    """Items answered in that consultation space."""

    title = _("space")
    parameter_name = "space"

    def lookups(self, request, model_admin):
        spaces = Space.objects.filter(bot__in=bots_of(request.user)).select_related("bot")
        several_bots = len({space.bot_id for space in spaces}) > 1
        return [(space.pk, f"{space.name} · {space.bot.name}" if several_bots else space.name) for space in spaces]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        if not str(self.value()).isdigit():  # a hand-typed address: nothing matches, never an error
            return queryset.none()
        return queryset.filter(answers__space_id=self.value()).distinct()
