"""Who may call a protected servlet: `authenticate_request` reads the Authorization header,
`authorize` also checks the bot's account and the user's role.

Authorization header forms (servlet-api.md §5, product-behaviour.md §5.5):
    <token>                          a token from the Authentication servlet (24 hours)
    Bearer <token>                   the same, in the usual OAuth spelling
    Basic base64(login:password)     the back-office login and password

Failures are 401 with a stable code: MISSING_CREDENTIALS, INVALID_CREDENTIALS, TOKEN_EXPIRED,
TOKEN_REVOKED; repeated wrong passwords are 429 (LOGIN_SLOWED, LOGIN_LOCKED: accounts/backends.py and
accounts/lockout.py, the guard every password check goes through).
A valid user acting on a bot of another account, or beyond their role, gets 403 FORBIDDEN.

Role matrix (a user acts only on the bots of their own account):

    action               administrator  editor  operator  reader
    account.read               x          x        x        x     the account's bots, users, competencies
    knowledge.read             x          x        x        x     export a knowledge base
    knowledge.edit             x          x                       import, delete, gallery
    preferences.read           x          x                 x     bot and account preferences
    preferences.edit           x                                  set or delete a preference
    status.details             x          x                       server status with details
    users.add                  x                                  add a back-office user
    competencies.edit          x                                  add or delete a competency
    livechat.operate           x                   x              answer visitors, set one's availability
    livechat.supervise         x                                  set other operators' availability
    livechat.monitor           x                  (x)             supervise live chat: read along, whisper,
                                                                  join, take over (monitored bots' dialogs)

(x): an operator whose membership has the supervisor right (Membership.supervisor, given by an
administrator in the back office or by PUT operators/availability/{login}).

Django superusers are the platform's operators: they may do everything on every account.
The back office (Django's admin) asks Django's permissions instead: accounts/roles.py gives each role a
group holding the model permissions of its row of this table.
"""

import base64
import binascii

from django.contrib.auth import authenticate
from django.utils import timezone

from accounts import backends
from accounts.models import ApiToken, Role
from bots.servlet.errors import Forbidden, Unauthorized

ACTIONS = frozenset(
    {
        "account.read",
        "knowledge.read",
        "knowledge.edit",
        "preferences.read",
        "preferences.edit",
        "status.details",
        "users.add",
        "competencies.edit",
        "livechat.operate",
        "livechat.supervise",
        "livechat.monitor",
    }
)

ROLE_ACTIONS: dict[str, frozenset[str]] = {
    Role.ADMINISTRATOR: ACTIONS,
    Role.EDITOR: frozenset({"knowledge.read", "knowledge.edit", "preferences.read", "account.read", "status.details"}),
    Role.OPERATOR: frozenset({"knowledge.read", "account.read", "livechat.operate"}),
    Role.READER: frozenset({"knowledge.read", "preferences.read", "account.read"}),
}

# Rights a membership may be given beyond its role: (the right, the roles it may be given to).
SUPERVISOR_ACTIONS = frozenset({"livechat.monitor"})
SUPERVISOR_ROLES = frozenset({Role.OPERATOR})

HOW_TO_AUTHENTICATE = (
    "Send an Authorization header: a token from the Authentication servlet (POST /servlet/api/authentication "
    "or the page /servlet/authentication.html), 'Bearer <token>' or 'Basic base64(login:password)'."
)


def authenticate_request(request):
    """The user the request's Authorization header proves, or 401. The result is kept on the request."""
    http_request = getattr(request, "_request", request)  # a DRF Request wraps Django's
    cached = getattr(http_request, "_servlet_user", None)
    if cached is not None:
        return cached
    header = (http_request.META.get("HTTP_AUTHORIZATION") or "").strip()
    if not header:
        raise Unauthorized(f"Credentials are missing. {HOW_TO_AUTHENTICATE}", code="MISSING_CREDENTIALS")
    scheme, _, rest = header.partition(" ")
    scheme_lower = scheme.lower()
    if scheme_lower == "basic":
        user, token = _basic_user(http_request, rest.strip()), None
    elif scheme_lower in ("bearer", "token"):
        user, token = _token_user(rest.strip())
    elif not rest:
        user, token = _token_user(header)
    else:
        raise Unauthorized(
            f"The Authorization scheme '{scheme[:20]}' is not accepted. {HOW_TO_AUTHENTICATE}",
            code="INVALID_CREDENTIALS",
        )
    http_request._servlet_user = user
    http_request._servlet_token = token
    return user


def authenticate_if_present(request):
    """The authenticated user when the request carries valid credentials, else None (never raises 401)."""
    try:
        return authenticate_request(request)
    except Unauthorized:
        return None


def request_token(request) -> ApiToken | None:
    """The token the request was authenticated with (None for Basic or before authentication)."""
    return getattr(getattr(request, "_request", request), "_servlet_token", None)


def authorize(request, bot, action: str):
    """Authenticate, then check that the user's account owns `bot` (None: an account-level action on
    the user's own account) and that their role allows `action`; 403 FORBIDDEN otherwise."""
    user = authenticate_request(request)
    check_allowed(user, action, bot=bot)
    return user


def check_allowed(user, action: str, *, bot=None, account=None) -> None:
    if action not in ACTIONS:
        raise ValueError(f"Unknown action {action!r}; known: {sorted(ACTIONS)}")
    if user.is_superuser:
        return
    membership = user.membership if _has_membership(user) else None
    if membership is None:
        raise Forbidden("Your user belongs to no account, so it may act on no bot.", action=action)
    owner_id = bot.account_id if bot is not None else (account.pk if account is not None else membership.account_id)
    if owner_id != membership.account_id:
        what = "bot" if bot is not None else "account"
        raise Forbidden(f"This {what} belongs to another account than yours.", action=action)
    if action not in actions_of_member(membership):
        raise Forbidden(f"Your role ({membership.role}) does not allow {action}.", action=action)


def actions_of_member(membership) -> frozenset[str]:
    """What a member may do: their role's actions, and the supervisor's if they were given that right."""
    actions = ROLE_ACTIONS.get(membership.role, frozenset())
    if membership.supervisor and membership.role in SUPERVISOR_ROLES:
        actions = actions | SUPERVISOR_ACTIONS
    return actions


def can(user, action: str, *, bot=None) -> bool:
    """The same rule as `authorize`, as a yes/no for pages that only show or hide a link."""
    try:
        check_allowed(user, action, bot=bot)
    except Forbidden:
        return False
    return True


def account_of(user):
    """The user's account (None for a superuser outside every account)."""
    return user.membership.account if _has_membership(user) else None


def role_of(user) -> str | None:
    if _has_membership(user):
        return user.membership.role
    return Role.ADMINISTRATOR if user.is_superuser else None


def _has_membership(user) -> bool:
    # The reverse one-to-one raises RelatedObjectDoesNotExist, an AttributeError, when absent.
    return hasattr(user, "membership")


def _token_user(key: str):
    if not key:
        raise Unauthorized(f"The token is empty. {HOW_TO_AUTHENTICATE}", code="MISSING_CREDENTIALS")
    token = ApiToken.find(key) if len(key) <= 200 else None
    if token is None:
        raise Unauthorized(
            "The token is not known; get a new one from the Authentication servlet.", code="INVALID_CREDENTIALS"
        )
    now = timezone.now()
    if token.is_revoked():
        raise Unauthorized(
            "The token was revoked; get a new one from the Authentication servlet.", code="TOKEN_REVOKED"
        )
    if token.is_expired(now):
        raise Unauthorized(
            f"The token expired at {token.expires_at.isoformat()}; get a new one from the Authentication servlet.",
            code="TOKEN_EXPIRED",
        )
    if not token.user.is_active:
        raise Unauthorized("The token's user is disabled.", code="INVALID_CREDENTIALS")
    token.mark_used(now)
    return token.user, token


def _basic_user(http_request, encoded: str):
    try:
        decoded = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise Unauthorized(
            "The Basic credentials are not base64 of 'login:password'.", code="INVALID_CREDENTIALS"
        ) from None
    login, sep, password = decoded.partition(":")
    if not sep or not login:
        raise Unauthorized("The Basic credentials are not base64 of 'login:password'.", code="INVALID_CREDENTIALS")
    return login_with_password(http_request, login, password)


def login_with_password(request, login: str, password: str):
    """The user with that login and password; 401 if wrong, 429 when the failed-login guard refuses the
    attempt (accounts/backends.py counts it, as for every password check)."""
    http_request = getattr(request, "_request", request)
    user = authenticate(http_request, username=login, password=password)
    refused = backends.refusal(http_request)
    if refused is not None:
        raise refused
    if user is None:
        raise Unauthorized("The login or the password is wrong.", code="INVALID_CREDENTIALS")
    return user
