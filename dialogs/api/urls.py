"""Routes of the Chat servlet group."""

from bots.servlet.routes import servlet_path

from . import printing, views

urlpatterns = [
    servlet_path("chat/talk/<bot_uuid>/<context_id>", views.TalkView.as_view(), "chat-talk-context"),
    servlet_path("chat/talk/<bot_uuid>", views.TalkView.as_view(), "chat-talk"),
    servlet_path("chat/welcomecall/<bot_uuid>", views.WelcomeCallView.as_view(), "chat-welcomecall"),
    servlet_path("chat/pushrules/<bot_uuid>", views.PushRulesView.as_view(), "chat-pushrules"),
    servlet_path("chat/availablecontext/<bot_uuid>/<context_id>", views.AvailableContextView.as_view()),
    servlet_path("chat/availablecontext/<bot_uuid>", views.AvailableContextView.as_view(), "chat-availablecontext"),
    servlet_path("chat/history/<bot_uuid>", views.HistoryView.as_view(), "chat-history"),
    servlet_path("chat/topknowledge/<bot_uuid>", views.TopKnowledgeView.as_view(), "chat-topknowledge"),
    servlet_path("chat/search/<bot_uuid>", views.SearchView.as_view(), "chat-search"),
    servlet_path("chat/feedback/comment/<bot_uuid>", views.FeedbackCommentView.as_view(), "chat-feedback-comment"),
    servlet_path("chat/feedback/insatisfaction/<bot_uuid>", views.InsatisfactionView.as_view()),
    servlet_path("chat/feedback/<bot_uuid>", views.FeedbackView.as_view(), "chat-feedback"),
    servlet_path("chat/context/<bot_uuid>", views.ContextView.as_view(), "chat-context"),
    servlet_path("chat/dialog/previous/<bot_uuid>", views.PreviousDialogsView.as_view(), "chat-dialog-previous"),
    servlet_path("chat/error/<bot_uuid>", views.ClientErrorView.as_view(), "chat-error"),
    servlet_path("chat/variable/<bot_uuid>", views.VariableView.as_view(), "chat-variable"),
    servlet_path("chat/gdpr/<bot_uuid>", views.GdprView.as_view(), "chat-gdpr"),
    servlet_path("chat/print/<bot_uuid>", printing.PrintView.as_view(), "chat-print"),
]
