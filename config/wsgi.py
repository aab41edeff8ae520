"""WSGI entry point: plain HTTP served by sync workers (gunicorn), for a deployment without websockets.

Every request body is bounded before it is read, by the same rule as under ASGI (bots/servlet/limits.py),
and an upload its view would refuse is answered from its headers first (bots/servlet/before_body.py).
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_wsgi_app = get_wsgi_application()

from bots.servlet.before_body import BeforeBodyWSGIMiddleware  # noqa: E402  (needs Django set up first)
from bots.servlet.limits import BodyLimitWSGIMiddleware  # noqa: E402

# The view's refusal from the headers before BodyLimitWSGIMiddleware reads a chunked body (a declared
# length over the limit is left to its 413).
application = BeforeBodyWSGIMiddleware(BodyLimitWSGIMiddleware(django_wsgi_app))
