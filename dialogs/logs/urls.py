"""Routes of this servlet group (mounted under /servlet/api/ and /api/ by config/urls.py)."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path("logs/<bot_uuid>", views.BotLogView.as_view(), "logs-bot"),
]
