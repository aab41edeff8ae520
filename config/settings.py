"""Settings of the platform, read from the environment (django-environ).

With no environment at all the platform runs embedded: a SQLite file, an in-memory channel layer and
a local-memory cache. DATABASE_URL and REDIS_URL switch to PostgreSQL and Redis for real deployments.
"""

import os
import secrets
from pathlib import Path

import environ
from django.utils.translation import gettext_lazy as _

# One BLAS / OpenMP thread per process, set before numpy loads: a server process serves many requests
# on threads of its own and several processes share the cores, so a product split over every core only
# made the threads wait on each other (knowledge/matching/embeddings.py, workers.py).
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(environ.Env().str("DATA_DIR", default=str(BASE_DIR / "data")))

env = environ.Env(
    DEBUG=(bool, False),
    ALLOWED_HOSTS=(list, ["127.0.0.1", "localhost", "[::1]"]),
    CORS_ALLOWED_ORIGINS=(list, []),
    REDIS_URL=(str, ""),
    MATCHING_EMBEDDINGS=(bool, True),
    KB_UPLOAD_MAX_BYTES=(int, 50 * 1024 * 1024),
    TOKEN_LIFETIME_HOURS=(int, 24),
)


def _secret_key() -> str:
    """SECRET_KEY from the environment; else one generated once per installation, kept out of git."""
    if key := env.str("SECRET_KEY", default=""):
        return key
    path = DATA_DIR / "secret_key"
    if not path.exists():
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env("DEBUG")
ALLOWED_HOSTS = env("ALLOWED_HOSTS")

INSTALLED_APPS = [
    "daphne",
    # The back office's theme (django-unfold): it stays the Django admin, with a sidebar, filters and
    # dashboards that read like a current product; it must come before django.contrib.admin.
    # unfold's BasicAppConfig: the admin site is the back office's own (below), not the one unfold would set.
    "unfold.apps.BasicAppConfig",
    "unfold.contrib.filters",
    "unfold.contrib.forms",
    # Django's admin, whose site is the back office's (unfold's, subclassed): its login and change-password
    # forms answer a refused password attempt with 429 and how long to wait (accounts/backoffice_site.py).
    "accounts.backoffice_app.BackOfficeAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "bots",
    "accounts",
    "knowledge",
    "knowledge.vectors",
    "dialogs",
    "preferences",
    "livechat",
]

MIDDLEWARE = [
    "bots.servlet.metrics_middleware.ChatMetricsMiddleware",  # first: it must see CORS preflights too
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "bots.servlet.middleware.ServiceOutageMiddleware",  # database down: 503 at once, inside CORS
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The back office in English or French, as its user chose (accounts/language.py, LocaleMiddleware's).
    "accounts.language.ChosenLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "bots.time_zones.BotTimeZoneMiddleware",  # a bot's time zone on its back-office pages, reset after
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "bots.servlet.middleware.ServletErrorMiddleware",
]

ROOT_URLCONF = "config.urls"
# Servlet routes answer with or without a trailing slash themselves; a redirect would lose a POST.
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "livechat.context.console_link",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Each process keeps its connections for the next request (config/sqlite_pool): under ASGI,
    # CONN_MAX_AGE never reuses one, and opening one cost a tenth of a lexical talk.
    DATABASES["default"]["ENGINE"] = "config.sqlite_pool"
    # WAL lets the chat read while an import writes; the timeout rides out short write locks.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # Tests use an in-memory database, as Django does for SQLite (named here: with its own ENGINE,
    # pytest-django would otherwise take the file's path for a server's database name).
    DATABASES["default"].setdefault("TEST", {}).setdefault("NAME", ":memory:")
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and not DATABASES["default"].get("CONN_MAX_AGE"):
    # Under ASGI every request and every websocket frame may run on a new thread: a connection pool
    # (psycopg's) spares each one opening its own connection (2-3 ms, and the server's CPU). A
    # DATABASE_URL with ?conn_max_age=N keeps Django's persistent connections instead.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "pool", {"min_size": 2, "max_size": env.int("DATABASE_POOL_SIZE", default=20), "timeout": 10}
    )
    # The same backend, answering at once while the database is known to be down (config/postgres).
    DATABASES["default"]["ENGINE"] = "config.postgres"
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# The talk's statements run prepared on PostgreSQL (bots/prepared.py); off behind a pooler
# in transaction mode.
DATABASE_PREPARED_STATEMENTS = env.bool("DATABASE_PREPARED_STATEMENTS", default=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL")
# Keys apart in a Redis that several platforms share (REDIS_KEY_PREFIX). Test workers (pytest-xdist)
# share one Redis but each has a database of its own, so their users and bots have the same ids: one
# worker's export lock or login failures must not be another's.
REDIS_KEY_PREFIX = env.str("REDIS_KEY_PREFIX", default="") + os.environ.get("PYTEST_XDIST_WORKER", "")
if REDIS_URL:
    from redis.exceptions import ConnectionError as RedisConnectionError

    # channels_redis blocks 5 s on each read and redis-py's default socket timeout is 5 s too: every
    # idle websocket was closed (1011) 5 s after it opened. The read timeout stays well above that.
    # After Redis restarts, the layer's pooled connections are dead: without a retry on a fresh
    # connection, the first websocket of each process to use one was closed (1011) once Redis was back.
    REDIS_CHANNEL_HOST = {
        "address": REDIS_URL,
        "socket_timeout": 30,
        "socket_connect_timeout": 5,
        "socket_keepalive": True,
        "retry_on_error": [RedisConnectionError],
    }
    # Every socket of a server process receives through one Redis key, and channels_redis's capacity
    # (100 by default) counts that key: a burst of pushes to more sockets than that was dropped.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_CHANNEL_HOST], "capacity": 20_000, "prefix": f"asgi{REDIS_KEY_PREFIX}"},
        }
    }
    # A Redis that does not answer must not hold a login or an export: what uses the cache falls back
    # to the process after these timeouts (bots/status/services.py FallbackCache). A dead pooled
    # connection needs no retry here: redis-py's pool replaces it when it is taken.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_KEY_PREFIX,
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The only password backend: every authenticate() (back-office login, servlet Authentication and Basic, the
# token page, the old-password check) goes through the failed-login guard (accounts/backends.py). A second
# password backend would be a way around the guard, so there is none (tests/accounts/test_login_guard.py).
AUTHENTICATION_BACKENDS = ["accounts.backends.GuardedModelBackend"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# The back office's languages. Django's strings come translated; ours are in config/locale/ (makemessages),
# the theme's (unfold ships no French) in config/locale_theme/; `make install` compiles both.
LANGUAGES = [("en", "English"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "config" / "locale", BASE_DIR / "config" / "locale_theme"]
# One date format per language on every page (config/formats/: 2026-11-28 06:24 in English, 28/11/2026 06:24 in French).
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Only `collectstatic` needs it (a production deployment behind a web server); unset, nothing warns.
STATIC_ROOT = env.str("STATIC_ROOT", default="") or None
# Static files are served from the source folders, so `make run` needs no collectstatic step.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# CORS: the chatbox runs on the customer's site. Default: any origin (no cookies are used).
CORS_ALLOWED_ORIGINS = env("CORS_ALLOWED_ORIGINS")
CORS_ALLOW_ALL_ORIGINS = not CORS_ALLOWED_ORIGINS
CORS_URLS_REGEX = r"^/(servlet/|api/|chatWs).*$"
CORS_ALLOW_HEADERS = ["accept", "authorization", "content-type", "oidcaccesstoken", "x-requested-with"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "bots.servlet.errors.drf_exception_handler",
}
# Back-office sign-in: unfold's login form posts to the page's own address, so a login without `next`
# lands on the back office's index (Django's default is /accounts/profile/, which does not exist here).
LOGIN_URL = "/admin/login/"
LOGIN_REDIRECT_URL = "/admin/"
# A form refused for its CSRF token: a page in the back office's theme and language (JSON on servlet paths).
CSRF_FAILURE_VIEW = "accounts.error_pages.csrf_failure"


# The back office (django-unfold): its name, its home page per role and its sidebar of every page a role may open.
UNFOLD = {
    "SITE_TITLE": _("Back office"),
    "SITE_HEADER": _("Bot platform"),
    "SITE_SUBHEADER": _("Bots, knowledge, dialogs and live chat"),
    "SITE_SYMBOL": "smart_toy",
    "SHOW_LANGUAGES": True,  # the language switcher (English / Français) in the user menu
    "SHOW_HISTORY": True,
    # The home page: each role's figures and pages (reporting/dashboard.py).
    "DASHBOARD_CALLBACK": "reporting.dashboard.dashboard",
    "SIDEBAR": {
        "show_search": True,
        "show_all_applications": False,  # the navigation holds every page: no "All applications" detour
        # Every page a role may open, in the groups the pages' titles name (accounts/navigation.py).
        "navigation": "accounts.navigation.sidebar",
    },
}

# The API console (/servlet/api/doc/): its intro, groups and one-prefix listing come from bots/servlet/console.py.
SPECTACULAR_SETTINGS = {
    "TITLE": "Bot platform · Servlet API",
    "DESCRIPTION": "The servlet API of the conversational-bot platform.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PREPROCESSING_HOOKS": ["bots.servlet.console.one_prefix"],
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "bots.servlet.console.front_matter"],
    # The token stays authorized across reloads of the console; groups start folded, with a filter box.
    "SWAGGER_UI_SETTINGS": {
        "persistAuthorization": True,
        "docExpansion": "none",
        "filter": True,
        "tagsSorter": "alpha",
        "displayRequestDuration": True,
        "deepLinking": True,
    },
}

# Product limits (servlet-api.md §8)
USER_INPUT_MAX_CHARS = 600
CONTEXT_IDLE_SECONDS = 600
TOKEN_LIFETIME_HOURS = env("TOKEN_LIFETIME_HOURS")
KB_UPLOAD_MAX_BYTES = env("KB_UPLOAD_MAX_BYTES")
# A chat call's whole body (bots/servlet/limits.py): the largest legitimate one, chat/error with a
# 20,000-character stack trace and a 10,000-character message, is about 37 KB form-encoded; anything
# over the limit is refused with 413 before it is read.
CHAT_BODY_MAX_BYTES = env.int("CHAT_BODY_MAX_BYTES", default=64 * 1024)
# Chat calls one server process runs at once (bots/servlet/gate.py); the others wait their turn in order.
# 0 turns the gate off. Two: a talk is mostly CPU under one GIL, so more at once only take turns (4 served
# 13-18 % fewer talks than 2 on SQLite and PostgreSQL, bench/TALK_LOAD.md), and one slow talk (a cold
# index, the first talk after an edit) still leaves a lane to the others.
CHAT_CONCURRENCY = env.int("CHAT_CONCURRENCY", default=2)
# While a process's talks wait on the database (durable commits, a database on another host) with its core
# idle and talks queued, it runs more at once, up to this many (bots/servlet/turns.py); back to
# CHAT_CONCURRENCY once its core is busy or nobody waits. Equal to CHAT_CONCURRENCY: a fixed width.
CHAT_CONCURRENCY_MAX = env.int("CHAT_CONCURRENCY_MAX", default=8)
# A file a visitor sends from the chatbox (/servlet/fileupload, livechat/uploads): 413 above it, from the
# Content-Length, before the body is read; the files are kept in CHAT_UPLOAD_DIR.
CHAT_UPLOAD_MAX_BYTES = env.int("CHAT_UPLOAD_MAX_BYTES", default=10 * 1024 * 1024)
CHAT_UPLOAD_DIR = env.path("CHAT_UPLOAD_DIR", default=str(DATA_DIR / "uploads"))
# Websocket messages (livechat/bounds.py): a chatbox frame over CHAT_FRAME_MAX_BYTES, a console action over
# CONSOLE_FRAME_MAX_BYTES closes the socket with 1009, and the server itself (daphne, uvicorn) refuses a
# frame over the larger of the two from its header, before reading it. The largest legitimate chatbox
# frame, a talk on a bot with SAML on (a signed saml2_info of up to 16 KB in every frame, 600 typed
# characters, the page's address), is about 22 KB; the console's, a 4,000-character message, at most 24 KB.
CHAT_FRAME_MAX_BYTES = env.int("CHAT_FRAME_MAX_BYTES", default=32 * 1024)
CONSOLE_FRAME_MAX_BYTES = env.int("CONSOLE_FRAME_MAX_BYTES", default=32 * 1024)
# Open websockets one server process accepts; the next handshake is refused (503 under uvicorn, 403 under
# daphne) and the chatbox falls back to polling. 0: 20,000 (what a process was measured to hold in under
# 1 GB, bench/LIVECHAT.md), never more than the process's open-file limit less 1,000.
WEBSOCKETS_PER_PROCESS = env.int("WEBSOCKETS_PER_PROCESS", default=0)
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
MATCHING_EMBEDDINGS = env("MATCHING_EMBEDDINGS")
# Formulation vectors (knowledge/vectors/): a bot missing more than VECTORS_SYNC_LIMIT of them answers with its
# lexical matcher while a server process computes them in the background (polling for jobs every
# VECTORS_POLL_SECONDS; a claim older than VECTORS_LEASE_SECONDS without news is taken over). The bots' matching
# indexes of a process stay under MATCHING_MEMORY_MB: beyond it the least recently used are dropped and
# rebuilt from their stored vectors at their next talk.
# 200 vectors take about 0.4 s (USE) to 0.8 s (English: USE and MiniLM) here: a small bot (the demo's 139
# formulations) is still embedded from its first talk.
VECTORS_SYNC_LIMIT = env.int("VECTORS_SYNC_LIMIT", default=200)
# Where the background work runs: the vector worker and live chat's clocks. "in-process" (make run): each
# server process starts them at its first connection. "separate" (make prod): a process of its own runs them
# (`manage.py run_background`, docs/operations.md); the server processes only serve, and still upgrade their
# own bots' matchers once the vectors are stored.
BACKGROUND_WORK = env.str("BACKGROUND_WORK", default="in-process")
if BACKGROUND_WORK not in ("in-process", "separate"):
    raise environ.ImproperlyConfigured(f'BACKGROUND_WORK must be "in-process" or "separate", not {BACKGROUND_WORK!r}')
# Whether a server process starts its vector worker at its first connection (the tests start it themselves).
VECTORS_WORKER = env.bool("VECTORS_WORKER", default=True)
VECTORS_POLL_SECONDS = env.float("VECTORS_POLL_SECONDS", default=5.0)
VECTORS_LEASE_SECONDS = env.float("VECTORS_LEASE_SECONDS", default=60.0)
MATCHING_MEMORY_MB = env.int("MATCHING_MEMORY_MB", default=1024)
# Where a bot's knowledge snapshot and matching indexes are stored once per knowledge version, for every
# process of the machine to read instead of building them (knowledge/index_files.py); empty: not stored.
# Private to the deployment: its files are signed with SECRET_KEY. Processes of several machines each keep
# their own (a local disk is faster than a shared one).
MATCHING_INDEX_DIR = env.str("MATCHING_INDEX_DIR", default=str(DATA_DIR / "indexes"))

# E-mail (a dialog's transcript sent with #dydumailto#, dialogs/mailto.py): written on the console
# unless EMAIL_HOST names an SMTP server (tests use Django's locmem outbox).
EMAIL_HOST = env.str("EMAIL_HOST", default="")
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)  # a talk waits for the mail: never for long
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="chatbot@localhost")

# Live chat: an operator's console refreshes its presence every third of this; silent longer, the
# operator is offline and their visitors go to another operator. The timers run this often (0: off).
LIVECHAT_OPERATOR_GRACE_SECONDS = env.int("LIVECHAT_OPERATOR_GRACE_SECONDS", default=30)
LIVECHAT_TIMER_SECONDS = env.float("LIVECHAT_TIMER_SECONDS", default=5.0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
