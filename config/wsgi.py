"""WSGI entry point: plain HTTP served by sync workers (gunicorn), for a deployment without websockets.

Every request body is bounded before it is read, by the same rule as under ASGI (bots/servlet/limits.py).
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_wsgi_app = get_wsgi_application()

from bots.servlet.limits import BodyLimitWSGIMiddleware  # noqa: E402  (needs Django set up first)

application = BodyLimitWSGIMiddleware(django_wsgi_app)
