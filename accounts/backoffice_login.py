"""The back office's password forms when the failed-login guard refuses an attempt: its login form and
its change-password form (which checks the old password) say how long to wait, in the back office's
language, instead of Django's "Please enter the correct username and password"."""

import math

from django.contrib.auth import authenticate
from django.contrib.auth.views import PasswordChangeView
from django.core.exceptions import ValidationError
from django.utils.translation import ngettext
from django.views.decorators.debug import sensitive_variables
from unfold.forms import AdminOwnPasswordChangeForm, AuthenticationForm

from accounts import backends
from accounts.lockout import LoginRefused

REFUSED = "login_refused"


def refusal_message(refused: LoginRefused) -> str:
    if refused.code == "LOGIN_LOCKED":
        minutes = max(1, math.ceil(refused.retry_after / 60))
        return ngettext(
            "Too many failed logins: logging in with a password is locked for %(minutes)d minute. Try again later.",
            "Too many failed logins: logging in with a password is locked for %(minutes)d minutes. Try again later.",
            minutes,
        ) % {"minutes": minutes}
    seconds = refused.retry_after
    return ngettext(
        "Too many failed logins: wait %(seconds)d second before trying again.",
        "Too many failed logins: wait %(seconds)d seconds before trying again.",
        seconds,
    ) % {"seconds": seconds}


def refused_answer(request, response):
    """The page re-rendered after a refused attempt is a 429 with Retry-After, like the servlet's."""
    refused = backends.refusal(request)
    if refused is not None and response.status_code == 200:
        response.status_code = 429
        response["Retry-After"] = str(refused.retry_after)
    return response


class GuardedLoginForm(AuthenticationForm):
    def get_invalid_login_error(self):
        refused = backends.refusal(self.request)
        if refused is None:
            return super().get_invalid_login_error()
        return ValidationError(refusal_message(refused), code=REFUSED)


class GuardedPasswordChangeForm(AdminOwnPasswordChangeForm):
    """The old password is checked by `authenticate()`, so a wrong one counts as a failed login."""

    def __init__(self, user, *args, request=None, **kwargs):
        super().__init__(user, *args, **kwargs)
        self.request = request

    @sensitive_variables("old_password")
    def clean_old_password(self):
        old_password = self.cleaned_data["old_password"]
        if authenticate(self.request, username=self.user.get_username(), password=old_password) is None:
            refused = backends.refusal(self.request)
            if refused is not None:
                raise ValidationError(refusal_message(refused), code=REFUSED)
            raise ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return old_password


class GuardedPasswordChangeView(PasswordChangeView):
    form_class = GuardedPasswordChangeForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}
