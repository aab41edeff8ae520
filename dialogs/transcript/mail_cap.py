"""The bot page's "conversations sent by e-mail per day": the bot preference dialogs.mail.daily (the daily cap
of dialogs/transcript/mail_limits.py), shown with its value or default, saved through the preferences'
checks and history like any other change made in the back office. Dialogs registers the bot's admin with it
(dialogs/admin.py), so bots, the ground floor, imports neither dialogs nor preferences."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from bots.admin import BotAdmin
from preferences import services
from preferences.admin import VIA
from preferences.registry import MAILS_PER_DAY_MAX, known_key

from .mail_limits import DAILY_PREFERENCE, daily_cap

FIELD = "mails_per_day"
LABEL = _("Conversations sent by e-mail per day")
HELP = _(
    "At most this many conversations are sent by e-mail (the chatbox's “send me this conversation”) each day "
    "for this bot, all visitors together; 0 turns sending by e-mail off. Each conversation, each visitor's "
    "connection and each recipient also have a few an hour at most."
)


class MailCapForm(forms.ModelForm):
    mails_per_day = forms.IntegerField(label=LABEL, help_text=HELP, min_value=0, max_value=MAILS_PER_DAY_MAX)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bot = self.instance
        default = int(known_key(DAILY_PREFERENCE).default)
        self.fields[FIELD].initial = daily_cap(bot) if bot.pk else default


class MailCapAdmin:
    """For the bot's admin: the field's form, its read-only view (users who may only view the bot) and its saving."""

    form = MailCapForm

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        wanted = form.cleaned_data.get(FIELD)
        # Stored only when it changes what applies: saving a bot at the default stores nothing.
        if wanted is not None and wanted != daily_cap(obj):
            owner = services.Owner(bot=obj)
            services.set_preference(owner, DAILY_PREFERENCE, str(wanted), user=request.user, via=VIA)

    @admin.display(description=LABEL)
    def mails_per_day(self, bot):
        return daily_cap(bot)


class BotWithMailCapAdmin(MailCapAdmin, BotAdmin):
    """The bot's admin with its "Export by e-mail" part, before the internals."""

    fieldsets = [*BotAdmin.fieldsets[:-1], (_("Export by e-mail"), {"fields": [FIELD]}), BotAdmin.fieldsets[-1]]
