"""Routes of the Surveys servlet group and of the chatbox's survey calls."""

from bots.servlet.routes import servlet_path

from . import api

urlpatterns = [
    servlet_path(
        "chat/survey/configuration/<bot_uuid>", api.SurveyConfigurationView.as_view(), "chat-survey-configuration"
    ),
    servlet_path("chat/survey/<bot_uuid>", api.SurveyAnswerView.as_view(), "chat-survey"),
    servlet_path("surveys/bot/<bot_uuid>", api.SurveysView.as_view(), "surveys"),
    servlet_path("surveys/bot/<bot_uuid>/<survey_id>/results", api.SurveyResultsView.as_view(), "survey-results"),
    servlet_path("surveys/bot/<bot_uuid>/<survey_id>", api.SurveyView.as_view(), "survey"),
]
