"""Template context: whether the signed-in user answers visitors (the back office then links the console)."""

from .presence import may_operate


def may_open_console(request) -> bool:
    user = getattr(request, "user", None)
    return bool(user and user.is_authenticated and may_operate(user))


def console_link(request):
    return {"may_operate": may_open_console(request)}
