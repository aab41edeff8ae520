"""The back office's admin site: unfold's, with its two password forms behind the failed-login guard
(accounts/backoffice_login.py) and a refused attempt answered 429 with Retry-After; operators land in the
live-chat console after logging in (accounts/landing.py)."""

from django.urls import reverse
from unfold.sites import UnfoldAdminSite


class BackOfficeSite(UnfoldAdminSite):
    def __init__(self, name: str = "admin"):
        super().__init__(name)
        # Imported here: this module loads with the admin app, before the auth models are ready.
        from .backoffice_login import GuardedLoginForm

        self.login_form = GuardedLoginForm

    def login(self, request, extra_context=None):
        from .backoffice_login import refused_answer
        from .landing import landing

        return landing(request, refused_answer(request, super().login(request, extra_context)), self.name)

    def password_change(self, request, extra_context=None):
        """unfold's, with a form whose old-password check goes through `authenticate()`."""
        from .backoffice_login import GuardedPasswordChangeView, refused_answer

        defaults = {
            "success_url": reverse(f"{self.name}:password_change_done", current_app=self.name),
            "extra_context": {**self.each_context(request), **(extra_context or {})},
        }
        if self.password_change_template is not None:
            defaults["template_name"] = self.password_change_template
        request.current_app = self.name
        return refused_answer(request, GuardedPasswordChangeView.as_view(**defaults)(request))
