"""Back office for dialogs: reading conversations, GDPR requests and client errors."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from bots.admin import BotAdmin
from bots.logs.backoffice import ByDate, ReadOnlyLogAdmin
from bots.models import Bot

from .backoffice.admin import DialogAdmin
from .backoffice.testbot import box_view
from .gdpr.admin import GdprRequestAdmin
from .models import ClientError, Dialog, GdprRequest
from .transcript.mail_cap import BotWithMailCapAdmin

# The "test the bot" box on the bot's page talks through this app's pipeline: dialogs adds its URL to the bot's admin.
BotAdmin.bot_pages.append(("<int:object_id>/test/", box_view, "bots_bot_test"))

# The bot's page with the daily cap of conversations sent by e-mail (dialogs/transcript/mail_cap.py), a bot
# preference this app's transcript mail reads: the bot's admin registered again with it.
admin.site.unregister(Bot)
admin.site.register(Bot, BotWithMailCapAdmin)

# The dialogs page and its transcripts have their own module (dialogs/backoffice/).
admin.site.register(Dialog, DialogAdmin)


# GDPR requests have their own module (dialogs/gdpr/).
admin.site.register(GdprRequest, GdprRequestAdmin)


@admin.register(ClientError)
class ClientErrorAdmin(ReadOnlyLogAdmin):
    list_display = ["created_at", "error", "short_message", "browser", "bot"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter), "error", ("created_at", ByDate)]
    date_hierarchy = "created_at"
    list_select_related = ["bot"]
    readonly_fields = [field.name for field in ClientError._meta.fields]

    @admin.display(description=_("Message"))
    def short_message(self, error):
        return error.message[:80]


# Pages with their own back-office module: surveys (dialogs/surveys/admin.py) and a bot's learning page
# (dialogs/learning/admin.py: misunderstood questions, ignored groups, knowledge's models), beside the talk
# pipeline it replays.
from .learning import admin as learning_admin  # noqa: E402, F401
from .surveys import admin as surveys_admin  # noqa: E402, F401
