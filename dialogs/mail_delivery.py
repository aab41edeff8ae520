"""Whether a mail the platform sends really leaves it, said to the staff who sent it: Django's development
backends (the console, memory, a file, nowhere) only write or keep the message, so a page must not say it
was sent; an SMTP server (or any other backend) that accepted it has sent it."""

from django.conf import settings
from django.utils.translation import gettext as _

CONSOLE = "django.core.mail.backends.console.EmailBackend"
MEMORY = "django.core.mail.backends.locmem.EmailBackend"
FILE = "django.core.mail.backends.filebased.EmailBackend"
DUMMY = "django.core.mail.backends.dummy.EmailBackend"


def not_sent(address: str) -> str:
    """ "" when the configured backend sends mail; otherwise what it did with the message to `address`."""
    backend = settings.EMAIL_BACKEND
    values = {"mail": address, "path": getattr(settings, "EMAIL_FILE_PATH", "")}
    if backend == CONSOLE:
        return (
            _("No mail server is configured: the message to %(mail)s was written to the server's log, not sent.")
            % values
        )
    if backend == MEMORY:
        return (
            _(
                "No mail server is configured: the message to %(mail)s was kept in the server's memory "
                "(Django's test backend), not sent."
            )
            % values
        )
    if backend == FILE:
        return (
            _("No mail server is configured: the message to %(mail)s was written to a file in %(path)s, not sent.")
            % values
        )
    if backend == DUMMY:
        return _("No mail server is configured: the message to %(mail)s was dropped, not sent.") % values
    return ""
