"""Routes of the Bot preferences and Account preferences servlet groups."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path("preferences/keys", views.PreferenceKeysView.as_view(), "preference-keys"),
    servlet_path("preferences/history/bot/<bot_uuid>", views.BotPreferenceHistoryView.as_view()),
    servlet_path("preferences/history/account", views.AccountPreferenceHistoryView.as_view()),
    servlet_path("preferences/bot/<bot_uuid>", views.BotPreferencesView.as_view(), "bot-preferences"),
    servlet_path("preferences/bot/<bot_uuid>/<name>", views.BotPreferenceView.as_view(), "bot-preference"),
    servlet_path("preferences/bot/<bot_uuid>/<name>/<value>", views.BotPreferenceValueView.as_view()),
    servlet_path("preferences/account", views.AccountPreferencesView.as_view(), "account-preferences"),
    servlet_path("preferences/account/<name>", views.AccountPreferenceView.as_view(), "account-preference"),
    servlet_path("preferences/account/<name>/<value>", views.AccountPreferenceValueView.as_view()),
]
