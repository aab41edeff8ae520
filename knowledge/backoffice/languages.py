"""Languages and spaces chosen from the bot's own: select fields filled from the item's bot, and the
server-side check that a formulation, answer or sentence is in a language (and space) of its bot."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from unfold.forms import PaginationInlineFormSet
from unfold.widgets import UnfoldAdminSelectWidget

from bots.admin_scoping import bots_of
from bots.language_labels import language_label
from bots.models import Bot, BotLanguage


def bot_language_codes(bot: Bot) -> list[str]:
    return bot.language_codes()


def language_choices(request, bot_id: int | None) -> list[tuple[str, str]]:
    """The item's bot's languages; on an add page (no bot yet) those of every bot the user may edit,
    the formset's check then holds each row to the chosen bot's."""
    if bot_id:
        codes = bot_language_codes(Bot.objects.get(pk=bot_id))
    else:
        bots = bots_of(request.user)
        languages = BotLanguage.objects.filter(bot__in=bots).values_list("code", flat=True)
        codes = list(dict.fromkeys([*languages, *bots.values_list("default_language", flat=True)]))
    return [(code, language_label(code)) for code in codes]


def language_field(request, bot_id: int | None, **kwargs) -> forms.ChoiceField:
    return forms.ChoiceField(
        label=kwargs.get("label", _("Language")),
        choices=[("", "---------"), *language_choices(request, bot_id)],
        widget=UnfoldAdminSelectWidget,
        error_messages={"invalid_choice": _("“%(value)s” is not a language of this bot.")},
    )


def check_language(form, bot: Bot | None, field: str = "language") -> None:
    """Adds a form error when the form's language is not one of `bot`'s (a bot chosen on an add page
    may speak fewer languages than the union offered)."""
    if bot is None or field in form.errors:
        return
    language = form.cleaned_data.get(field)
    codes = bot_language_codes(bot)
    if language and language not in codes:
        form.add_error(
            field,
            gettext("“%(value)s” is not a language of this bot (its languages: %(codes)s).")
            % {"value": language, "codes": ", ".join(codes)},
        )


def check_space(form, bot: Bot | None, field: str = "space") -> None:
    if bot is None or field in form.errors:
        return
    space = form.cleaned_data.get(field)
    if space is not None and space.bot_id != bot.pk:
        form.add_error(field, gettext("“%(space)s” is not a space of this bot.") % {"space": space})


class ItemPartsFormSet(PaginationInlineFormSet):
    """An item's formulations, answers or branches: each row in a language (and space) of the item's bot."""

    def clean(self):
        super().clean()
        try:
            bot = self.instance.bot
        except Bot.DoesNotExist:  # no bot chosen yet: the item's form says so
            return
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or not form.has_changed() or self._should_delete_form(form):
                continue
            check_language(form, bot)
            if "space" in form.fields:
                check_space(form, bot)
