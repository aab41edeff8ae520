"""Languages and spaces chosen from the bot's own: select fields filled from the item's bot, and the
server-side check that a formulation, answer or sentence is in a language (and space) of its bot."""

from django import forms
from django.db import models
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


def sole_bot_id(user) -> int | None:
    """The user's bot when there is only one: an add page then presets it."""
    ids = list(bots_of(user).values_list("pk", flat=True)[:2])
    return ids[0] if len(ids) == 1 else None


def default_language(bot_id: int | None) -> str | None:
    if not bot_id:
        return None
    return Bot.objects.filter(pk=bot_id).values_list("default_language", flat=True).first()


def language_field(request, bot_id: int | None, **kwargs) -> forms.ChoiceField:
    """The bot's languages, its default language chosen in a new row."""
    return forms.ChoiceField(
        label=kwargs.get("label", _("Language")),
        initial=default_language(bot_id),
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


class FormulationFormSet(ItemPartsFormSet):
    """An item's formulations in the order shown: rows dragged into place carry their position, a new row
    (no position) goes after the item's last formulation."""

    def save_new(self, form, commit=True):
        if form.cleaned_data.get("position") is None:
            form.instance.position = self._next_position()
        return super().save_new(form, commit)

    def save_existing(self, form, obj, commit=True):
        if form.cleaned_data.get("position") is None:  # a row saved without its hidden position
            obj.position = form.initial.get("position") or 0
        return super().save_existing(form, obj, commit)

    def _next_position(self) -> int:
        if not hasattr(self, "_last_position"):
            positions = [f.cleaned_data.get("position") for f in self.forms if hasattr(f, "cleaned_data")]
            stored = (
                self.instance.formulations.aggregate(last=models.Max("position"))["last"] if self.instance.pk else None
            )
            self._last_position = max([p for p in [*positions, stored] if p is not None], default=-1)
        self._last_position += 1
        return self._last_position
