"""The operators' console page (/livechat/): a back-office page for users who answer visitors, in their
back-office language (the page's words in django.po, its scripts' in djangojs.po)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import path
from django.utils.translation import gettext as _

from bots.servlet.errors import Forbidden

from . import presence
from .callback_page import callback_page


@login_required(login_url="admin:login")
def console_page(request):
    try:
        operator = presence.operator_for(request.user)
    except Forbidden as refused:
        # The servlet's message is the JSON API's English; the page says it in the user's language.
        reason = (
            _("Only operators and administrators of an account answer visitors in live chat.")
            if refused.code == "NOT_AN_OPERATOR"
            else refused.message
        )
        return render(request, "livechat/not_operator.html", {"reason": reason}, status=403)
    return render(request, "livechat/console.html", {"operator": operator})


urlpatterns = [
    path("", console_page, name="livechat-console"),
    path("callback/<uuid:bot_uuid>/", callback_page, name="livechat-callback"),
]
