"""What the account groups do: the bots a user can access, adding a back-office user, competencies.

Views and the back office call these; each checks its input and raises a servlet error (400/409)
before it changes anything.
"""

import re

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from bots.models import Bot
from bots.servlet.errors import InvalidField, MissingField, NotFound, ServletError

from .models import Account, ApiToken, Competency, Membership, Role

LOGIN_PATTERN = re.compile(r"^[\w.@+-]{1,150}$")
COMPETENCY_MAX_LENGTH = Competency._meta.get_field("name").max_length


class AlreadyExists(ServletError):
    status, code = 409, "ALREADY_EXISTS"


def bots_of(user):
    """The bots a user can access: their account's, or every bot for a superuser."""
    bots = Bot.objects.all() if user.is_superuser else Bot.objects.filter(account__members__user=user)
    return bots.select_related("account").prefetch_related("languages").order_by("name", "pk")


def bot_summary(bot: Bot) -> dict:
    return {
        "botUUID": str(bot.uuid),
        "name": bot.name,
        "account": bot.account.name if bot.account else None,
        "defaultLanguage": bot.default_language,
        "languages": [language.code for language in bot.languages.all()] or [bot.default_language],
    }


def user_summary(user) -> dict:
    membership = getattr(user, "membership", None) if hasattr(user, "membership") else None
    return {
        "login": user.get_username(),
        "email": user.email,
        "role": membership.role if membership else ("administrator" if user.is_superuser else None),
        "account": membership.account.name if membership else None,
        "active": user.is_active,
        "superuser": user.is_superuser,
    }


def token_summary(token: ApiToken, key: str | None = None) -> dict:
    """What a caller learns about a token; the key itself only right after it was issued."""
    body = {
        "tokenType": "Bearer",
        "login": token.user.get_username(),
        "createdAt": token.created_at.isoformat(),
        "expiresAt": token.expires_at.isoformat(),
        "expiresIn": max(0, int((token.expires_at - token.created_at).total_seconds())),
    }
    if key:
        body = {"token": key, **body}
    return body


@transaction.atomic
def add_back_office_user(account: Account, *, login: str, password: str, email: str = "", role: str = Role.READER):
    """A new back-office user of `account` with `role`; 400 on bad input, 409 if the login is taken."""
    login = (login or "").strip()
    if not login:
        raise MissingField("login")
    if not LOGIN_PATTERN.match(login):
        raise InvalidField("login", "use at most 150 letters, digits and @ . + - _")
    role = (role or Role.READER).strip().lower()
    if role not in Role.values:
        raise InvalidField("role", f"'{role[:30]}' is not one of {', '.join(Role.values)}")
    email = (email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise InvalidField("email", "not an e-mail address") from None
    if not password:
        raise MissingField("password")
    User = get_user_model()
    if User.objects.filter(username__iexact=login).exists():
        raise AlreadyExists(f"A user with the login '{login}' already exists.", field="login")
    candidate = User(username=login, email=email)
    try:
        password_validation.validate_password(password, candidate)
    except ValidationError as error:
        raise InvalidField("password", " ".join(error.messages).rstrip(".")) from None
    candidate.set_password(password)
    # The back office is the Django admin: a back-office user is staff, scoped to their account.
    candidate.is_staff = True
    candidate.save()
    Membership.objects.create(user=candidate, account=account, role=role)
    return candidate


def clean_competency_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise MissingField("name")
    if len(name) > COMPETENCY_MAX_LENGTH:
        raise InvalidField("name", f"at most {COMPETENCY_MAX_LENGTH} characters")
    return name


def add_competency(account: Account, name: str, user=None) -> tuple[Competency, bool]:
    """The account's competency of that name (any case), created if missing. Returns (competency, created)."""
    name = clean_competency_name(name)
    existing = account.competencies.filter(name__iexact=name).first()
    if existing:
        return existing, False
    try:
        with transaction.atomic():
            return Competency.objects.create(account=account, name=name, created_by=user), True
    except IntegrityError:  # created meanwhile by a concurrent call
        return account.competencies.get(name__iexact=name), False


def find_competency(account: Account, name: str) -> Competency:
    competency = account.competencies.filter(name__iexact=clean_competency_name(name)).first()
    if competency is None:
        raise NotFound(f"The account has no competency named '{name[:100]}'.", code="UNKNOWN_COMPETENCY")
    return competency


def competency_summary(competency: Competency) -> dict:
    return {
        "id": competency.pk,
        "name": competency.name,
        "createdAt": competency.created_at.isoformat(),
        "createdBy": competency.created_by.get_username() if competency.created_by else None,
    }
