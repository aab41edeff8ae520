"""Template context: whether the signed-in user answers visitors (the back office then links the console)."""

from .presence import may_operate


def console_link(request):
    user = getattr(request, "user", None)
    return {"may_operate": bool(user and user.is_authenticated and may_operate(user))}
