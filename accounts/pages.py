"""The page /servlet/authentication.html: a person enters login and password and gets a token valid
24 hours, with its expiry and the equivalent HTTP Basic value (servlet-api.md §5)."""

import base64

from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from bots.servlet.errors import ServletError

from .lockout import client_address
from .models import ApiToken, Role
from .permissions import login_with_password
from .services import user_summary

# The servlet's refusals, as this page says them in its reader's language (the JSON API keeps its English).
REFUSALS = {
    "INVALID_CREDENTIALS": _("The login or the password is wrong."),
    "LOGIN_LOCKED": _("Too many failed logins for this login or this address; try again later."),
    "LOGIN_SLOWED": _("Several failed logins: wait before trying again."),
}


@never_cache
@csrf_protect
def authentication_page(request):
    context = {"console_url": reverse("api-console"), "login": ""}
    status = 200
    if request.method == "POST":
        login = request.POST.get("login", "").strip()
        password = request.POST.get("password", "")
        context["login"] = login
        if not login or not password:
            context["error"], status = gettext("Enter your back-office login and password."), 400
        else:
            try:
                user = login_with_password(request, login, password)
            except ServletError as error:
                context["error"], status = REFUSALS.get(error.code, error.message), error.status
                context["retry_after"] = getattr(error, "retry_after", None)
            else:
                token, key = ApiToken.issue(user, address=client_address(request) or None)
                summary = user_summary(user)
                basic = base64.b64encode(f"{login}:{password}".encode()).decode("ascii")
                context.update(
                    token=key,
                    expires_at=token.expires_at,
                    lifetime_hours=int((token.expires_at - token.created_at).total_seconds() // 3600),
                    basic=f"Basic {basic}",
                    user=summary,
                    role=Role(summary["role"]).label if summary["role"] else "",  # in the page's language
                    api_root=request.build_absolute_uri("/servlet/api"),
                )
    response = render(request, "servlet/authentication.html", context, status=status)
    if context.get("retry_after"):  # refused by the failed-login guard: when to come back, as the servlet says
        response["Retry-After"] = str(context["retry_after"])
    return response


# A page people read, under a servlet path: its errors (a form refused for its CSRF token…) are pages too
# (accounts/error_pages.py).
authentication_page.person_page = True
