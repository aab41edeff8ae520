"""Servlet groups of the accounts app: Authentication, Account, BO users, Competencies.

Answers are plain JSON (only the chat group uses the base64 envelope); errors use the one servlet
error shape, and each call's schema names every status it may answer (bots/servlet/schema.py). Every
protected call goes through accounts.permissions.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers

from accounts import services
from accounts.lockout import client_address
from accounts.models import ApiToken
from accounts.permissions import (
    authenticate_request,
    check_allowed,
    login_with_password,
    request_token,
)
from accounts.servlet import ProtectedView, acting_account
from bots.servlet.envelope import plain_json
from bots.servlet.errors import MissingField, NotFound
from bots.servlet.schema import (
    ARRAY,
    OBJECT,
    PROTECTED_ERRORS,
    PROTECTED_RESOURCE_ERRORS,
    plain_schema,
    responses,
)

JSON = {200: plain_schema(OBJECT)}
LIST = {200: plain_schema(ARRAY)}
CREATED = {201: plain_schema(OBJECT, "Created.")}
# Protected calls on the account: a superuser outside every account names one (`account`), 404 if unknown.
ACCOUNT_ERRORS = PROTECTED_RESOURCE_ERRORS
ACCOUNT_PARAMETER = OpenApiParameter(
    "account", str, description="A superuser outside every account names the account to act on."
)
CREDENTIALS = inline_serializer("Credentials", {"login": serializers.CharField(), "password": serializers.CharField()})
NEW_USER = inline_serializer(
    "NewBackOfficeUser",
    {
        "login": serializers.CharField(),
        "password": serializers.CharField(),
        "email": serializers.EmailField(required=False),
        "role": serializers.ChoiceField(["administrator", "editor", "operator", "reader"], required=False),
    },
)
COMPETENCY = inline_serializer("Competency", {"name": serializers.CharField(max_length=100)})


@extend_schema(
    tags=["Authentication"],
    summary="Get a token valid 24 hours from a login and password (form fields or HTTP Basic)",
    description="POST login and password (form, JSON or an `Authorization: Basic` header). The answer holds "
    "the token and its expiry. Send it as `Authorization: <token>` or `Authorization: Bearer <token>`. "
    "DELETE (with the token as Authorization) revokes it.",
    request=CREDENTIALS,
    responses=responses(JSON, *PROTECTED_ERRORS),
)
class AuthenticationView(ProtectedView):
    def post(self, request):
        params = self.params(request)
        login = params.text("login", "username", "user")
        if login:
            user = login_with_password(request, login, params.text("password", "pass"))
        elif (request.META.get("HTTP_AUTHORIZATION") or "").lower().startswith("basic "):
            user = authenticate_request(request)
        else:
            raise MissingField("login")
        token, key = ApiToken.issue(user, address=client_address(request) or None)
        summary = services.user_summary(user)
        body = {**services.token_summary(token, key), "role": summary["role"], "account": summary["account"]}
        response = plain_json(body)
        response["Cache-Control"] = "no-store"
        return response

    @extend_schema(
        summary="Revoke the token sent as Authorization (or the one in the `token` field)",
        request=None,
        parameters=[OpenApiParameter("token", str, description="The token to revoke, if not the one sent.")],
        responses=responses(JSON, *PROTECTED_RESOURCE_ERRORS),
    )
    def delete(self, request):
        user = authenticate_request(request)
        key = self.params(request).text("token")
        token = ApiToken.find(key) if key else request_token(request)
        if token is None or token.user_id != user.pk:
            raise NotFound("No token of yours matches; send the token to revoke.", code="UNKNOWN_TOKEN")
        token.revoke()
        return plain_json({"revoked": True, "revokedAt": token.revoked_at.isoformat(), **services.token_summary(token)})


@extend_schema(
    tags=["Authentication"],
    summary="Revoke a token (POST alias of DELETE /authentication)",
    request=None,
    responses=responses(JSON, *PROTECTED_RESOURCE_ERRORS),
)
class RevokeTokenView(AuthenticationView):
    def post(self, request):
        return self.delete(request)


@extend_schema(
    tags=["Account"],
    summary="Who the caller is: login, role, account and the bots they can access",
    responses=responses(JSON, *PROTECTED_ERRORS),
)
class AccountView(ProtectedView):
    def get(self, request):
        user = authenticate_request(request)
        if not user.is_superuser:
            check_allowed(user, "account.read")
        bots = [services.bot_summary(bot) for bot in services.bots_of(user)]
        return plain_json({**services.user_summary(user), "bots": bots})


@extend_schema(tags=["Account"], summary="All bots the user can access", responses=responses(LIST, *PROTECTED_ERRORS))
class AccountBotsView(ProtectedView):
    def get(self, request):
        user = authenticate_request(request)
        if not user.is_superuser:
            check_allowed(user, "account.read")
        return plain_json([services.bot_summary(bot) for bot in services.bots_of(user)])


@extend_schema_view(
    get=extend_schema(
        tags=["BO users"],
        summary="List the account's back-office users",
        parameters=[ACCOUNT_PARAMETER],
        responses=responses(LIST, *ACCOUNT_ERRORS),
    ),
    post=extend_schema(
        tags=["BO users"],
        summary="Add a back-office user (administrators): login, password, email (optional), role (default reader)",
        request=NEW_USER,
        responses=responses(CREATED, *ACCOUNT_ERRORS, 409),
    ),
)
class BackOfficeUsersView(ProtectedView):
    def get(self, request):
        user = authenticate_request(request)
        account = acting_account(request, user, "account.read")
        members = account.members.select_related("user", "account").order_by("user__username")
        return plain_json([services.user_summary(member.user) for member in members])

    def post(self, request):
        user = authenticate_request(request)
        account = acting_account(request, user, "users.add")
        params = self.params(request)
        created = services.add_back_office_user(
            account,
            login=params.text("login", "username"),
            password=params.text("password"),
            email=params.text("email", "mail"),
            role=params.text("role", default="reader"),
        )
        return plain_json(services.user_summary(created), status=201)


@extend_schema(
    tags=["BO users"],
    summary="One back-office user of the account",
    parameters=[ACCOUNT_PARAMETER],
    responses=responses(JSON, *ACCOUNT_ERRORS),
)
class BackOfficeUserView(ProtectedView):
    def get(self, request, login):
        user = authenticate_request(request)
        account = acting_account(request, user, "account.read")
        member = account.members.select_related("user").filter(user__username__iexact=login).first()
        if member is None:
            raise NotFound(f"The account has no user '{login[:150]}'.", code="UNKNOWN_USER")
        return plain_json(services.user_summary(member.user))


@extend_schema_view(
    get=extend_schema(
        tags=["Competencies"],
        summary="List the account's competencies",
        parameters=[ACCOUNT_PARAMETER],
        responses=responses(LIST, *ACCOUNT_ERRORS),
    ),
    post=extend_schema(
        tags=["Competencies"],
        summary="Add a competency to the account (field `name`); 200 if it exists already",
        request=COMPETENCY,
        responses=responses({**JSON, **CREATED}, *ACCOUNT_ERRORS),
    ),
)
class CompetenciesView(ProtectedView):
    def get(self, request):
        account = acting_account(request, authenticate_request(request), "account.read")
        return plain_json([services.competency_summary(c) for c in account.competencies.select_related("created_by")])

    def post(self, request):
        user = authenticate_request(request)
        account = acting_account(request, user, "competencies.edit")
        competency, created = services.add_competency(account, self.params(request).text("name"), user)
        return plain_json(services.competency_summary(competency), status=201 if created else 200)


@extend_schema_view(
    get=extend_schema(
        tags=["Competencies"],
        summary="One competency of the account",
        parameters=[ACCOUNT_PARAMETER],
        responses=responses(JSON, *ACCOUNT_ERRORS),
    ),
    put=extend_schema(
        tags=["Competencies"],
        summary="Add this competency to the account (201; 200 if it exists already)",
        request=None,
        parameters=[ACCOUNT_PARAMETER],
        responses=responses({**JSON, **CREATED}, *ACCOUNT_ERRORS),
    ),
    delete=extend_schema(
        tags=["Competencies"],
        summary="Delete this competency of the account",
        parameters=[ACCOUNT_PARAMETER],
        responses=responses(JSON, *ACCOUNT_ERRORS),
    ),
)
class CompetencyView(ProtectedView):
    def get(self, request, name):
        account = acting_account(request, authenticate_request(request), "account.read")
        return plain_json(services.competency_summary(services.find_competency(account, name)))

    def put(self, request, name):
        user = authenticate_request(request)
        account = acting_account(request, user, "competencies.edit")
        competency, created = services.add_competency(account, name, user)
        return plain_json(services.competency_summary(competency), status=201 if created else 200)

    def delete(self, request, name):
        account = acting_account(request, authenticate_request(request), "competencies.edit")
        competency = services.find_competency(account, name)
        summary = services.competency_summary(competency)
        competency.delete()
        return plain_json({"deleted": True, **summary})
