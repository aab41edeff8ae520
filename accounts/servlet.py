"""What the apps' protected servlet calls share (accounts.permissions underneath): the view that needs the
Authorization header, the bot a call acts on and the account an account-level call acts on."""

from accounts.models import Account
from accounts.permissions import account_of, authenticate_request, authorize, check_allowed
from bots.servlet.authorization import ServletAuthorization
from bots.servlet.errors import Forbidden, MissingField, NotFound
from bots.servlet.views import ServletView, get_bot


class ProtectedView(ServletView):
    """A servlet view that needs the Authorization header (declared for the API console)."""

    authentication_classes = [ServletAuthorization]


def acting_account(request, user, action: str) -> Account:
    """The account an account-level call acts on: the user's own. A superuser outside every account
    names one with the `account` parameter."""
    account = account_of(user)
    if account is None:
        name = ServletView().params(request).text("account")
        if not user.is_superuser:
            raise Forbidden("Your user belongs to no account.", action=action)
        if not name:
            raise MissingField("account")
        account = Account.objects.filter(name=name).first()
        if account is None:
            raise NotFound(f"No account is named '{name[:100]}'.", code="UNKNOWN_ACCOUNT")
    check_allowed(user, action, account=account)
    return account


def permitted_bot(request, bot_uuid, action: str):
    """Who asks (401), which bot (404), whether they may (403), in that order."""
    authenticate_request(request)
    bot = get_bot(bot_uuid)
    return bot, authorize(request, bot, action)
