"""A request Django refuses itself before any view answers (a Host not in ALLOWED_HOSTS, a cookie or a form
it cannot read): the servlet's JSON error on servlet paths, Django's own 400 page elsewhere (the back office).

Django's `handler400` (config/urls.py) answers what a middleware raised, such as CommonMiddleware's check of
the Host; ServletErrorMiddleware gives what a servlet view raised the same answer (errors.servlet_bad_request).
"""

from django.views import defaults

from .errors import servlet_bad_request
from .middleware import is_servlet_path


def bad_request(request, exception):
    """Django's handler400."""
    if is_servlet_path(request.path):
        return servlet_bad_request(exception)
    return defaults.bad_request(request, exception)
