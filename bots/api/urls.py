"""Routes of the bots app's servlet groups."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path("account/dydubox/bots/language", views.BotLanguagesView.as_view(), "bot-languages"),
    servlet_path("account/dydubox/bots/language/<bot_uuid>", views.BotLanguagesView.as_view()),
]
