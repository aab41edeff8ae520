"""Routes of live chat's servlet calls (under /servlet/api/ and /api/)."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path("chat/poll/last/<bot_uuid>", views.PollView.as_view(), "chat-poll"),
    servlet_path("chat/typing/<bot_uuid>", views.TypingView.as_view(), "chat-typing"),
    servlet_path("chat/reading/<bot_uuid>", views.ReadingView.as_view(), "chat-reading"),
    servlet_path("chat/status/<bot_uuid>/<context_id>", views.ChatStatusView.as_view()),
    servlet_path("chat/status/<bot_uuid>", views.ChatStatusView.as_view(), "chat-status"),
    servlet_path("operators/availability", views.OperatorsAvailabilityView.as_view(), "operators-availability"),
    servlet_path("operators/availability/<login>", views.OperatorAvailabilityView.as_view(), "operator-availability"),
    servlet_path("operators/available/<bot_uuid>", views.BotAvailabilityView.as_view(), "bot-availability"),
    servlet_path("competencies/<name>/operators", views.CompetencyOperatorsView.as_view(), "competency-operators"),
    servlet_path("competencies/<name>/operators/<login>", views.CompetencyOperatorView.as_view()),
    servlet_path("callback/<bot_uuid>", views.CallbacksView.as_view(), "callbacks"),
    servlet_path("callback/<bot_uuid>/<callback_id>/<action>", views.CallbackActionView.as_view(), "callback-action"),
]
