"""Settings of bench/matcher_django.py: the platform's own (config.settings: the same database, the same
matching configuration from the environment), with no middleware and one URL. Never part of the product."""

from config.settings import *  # noqa: F403 (the platform's settings, two of them replaced)

ROOT_URLCONF = "bench.matcher_django"
MIDDLEWARE = []
