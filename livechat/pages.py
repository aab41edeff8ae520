"""The operators' console page (/livechat/): a back-office page for users who answer visitors."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import path

from bots.servlet.errors import Forbidden

from . import presence
from .callback_page import callback_page


@login_required(login_url="admin:login")
def console_page(request):
    try:
        operator = presence.operator_for(request.user)
    except Forbidden as refused:
        return render(request, "livechat/not_operator.html", {"reason": refused.message}, status=403)
    return render(request, "livechat/console.html", {"operator": operator})


urlpatterns = [
    path("", console_page, name="livechat-console"),
    path("callback/<uuid:bot_uuid>/", callback_page, name="livechat-callback"),
]
