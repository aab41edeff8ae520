"""The only password backend: every `authenticate()` (the back office's login form, the servlet's
Authentication and Basic, the token page, the old-password check) goes through the failed-login guard.

Before a password is checked, accounts.lockout decides whether the attempt may be made at all (per
login, and per address when there is a request); a wrong password counts as a failure, a right one clears
the login's failures. A refused attempt raises PermissionDenied, which makes Django's `authenticate()`
stop without asking any other backend, and leaves the refusal on the request (`refusal(request)`) so that
each door can answer it its own way: 429 in the servlet error shape, or the login form with its message.
"""

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from accounts import lockout
from accounts.lockout import LoginRefused

REFUSAL_ATTRIBUTE = "login_refused"


class GuardedModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        http_request = getattr(request, "_request", request)  # a DRF Request wraps Django's
        # Without a request (a script, a management command) only the login can be counted.
        address = lockout.client_address(http_request) if http_request is not None else ""
        if http_request is not None:
            setattr(http_request, REFUSAL_ATTRIBUTE, None)  # from an earlier attempt on the same request
        try:
            lockout.check(address, username)
        except LoginRefused as refused:
            if http_request is not None:
                setattr(http_request, REFUSAL_ATTRIBUTE, refused)
            raise PermissionDenied(refused.message) from refused
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            lockout.record_failure(address, username)
        else:
            lockout.record_success(username)
        return user

    async def aauthenticate(self, request, username=None, password=None, **kwargs):
        # ModelBackend has an async twin of its own: it must not skip the guard.
        return await sync_to_async(self.authenticate)(request, username=username, password=password, **kwargs)


def refusal(request) -> LoginRefused | None:
    """Why the guard refused the last password attempt made with this request, if it did."""
    return getattr(getattr(request, "_request", request), REFUSAL_ATTRIBUTE, None)
