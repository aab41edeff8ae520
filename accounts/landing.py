"""Where a back-office user lands after logging in: an operator bound for the back office's home goes to the
live-chat console, where their work is; everyone else (and an operator sent to another page) goes on as asked."""

from django.http import HttpResponseRedirect
from django.urls import reverse

from .models import Role
from .permissions import role_of


def landing(request, response, site_name: str = "admin"):
    """The login view's answer, its redirection changed for an operator who just logged in."""
    if request.method != "POST" or not isinstance(response, HttpResponseRedirect):
        return response
    user = request.user
    if not user.is_authenticated or role_of(user) != Role.OPERATOR:
        return response
    if response.url != reverse(f"{site_name}:index"):
        return response  # a page they asked for (?next=…): theirs
    return HttpResponseRedirect(reverse("livechat-console"))
