"""The callback page (/livechat/callback/<bot>/): what the no-operator answer links to, for chatboxes that
show links but no form of ours (CV5). A visitor leaves their number; operators find it with the console's
callbacks. The same checks and limits as the Callback servlet (phone, 5 per address per 10 minutes)."""

from django.http import Http404
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from bots.models import Bot
from bots.servlet.errors import InvalidField, MissingField, TooManyRequests

from . import callbacks, missed

FIELDS = ("phone", "name", "preferred_time", "reason")
LIMITS = {"phone": 100, "name": 100, "preferred_time": 100, "reason": 2000}


@require_http_methods(["GET", "POST"])
def callback_page(request, bot_uuid):
    bot = Bot.objects.filter(uuid=bot_uuid).exclude(account=None).first()
    if bot is None:
        raise Http404("No such bot.")
    language = _language(request.GET.get("lang", ""))
    token = request.GET.get("d", "")
    with translation.override(language):
        values = {name: request.POST.get(name, "")[: LIMITS[name]] for name in FIELDS}
        context = {"bot": bot, "language": language, "values": values, "error": "", "sent": False}
        if request.method == "GET":
            return render(request, "livechat/callback.html", context)
        try:
            phone = callbacks.clean_phone(values["phone"])
            callbacks.limit_anonymous(request, bot)
        except MissingField:
            return _refused(request, context, _("Please give the phone number to call."), 400)
        except InvalidField:
            message = _("This is not a phone number: 6 to 15 digits, with + first for an international one.")
            return _refused(request, context, message, 400)
        except TooManyRequests:
            message = _("Too many callback requests came from your connection: try again in a few minutes.")
            return _refused(request, context, message, 429)
        callbacks.request_callback(
            bot,
            phone=phone,
            name=values["name"],
            preferred_time=values["preferred_time"],
            reason=values["reason"],
            language=language,
            source="chatbox",
            dialog=missed.dialog_of_link(token, bot) if token else None,
        )
        context.update(sent=True, phone=phone)
        return render(request, "livechat/callback.html", context)


def _language(wanted: str) -> str:
    wanted = wanted.strip().lower()[:8]
    return wanted if wanted in {"fr", "en"} else "en"


def _refused(request, context, message: str, status: int):
    context["error"] = message
    return render(request, "livechat/callback.html", context, status=status)
