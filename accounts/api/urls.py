"""Routes of the accounts app's servlet groups: Server status, Authentication, Who am I, Account, BO users,
Competencies."""

from bots.servlet.routes import servlet_path

from . import server_status, views, whoami

urlpatterns = [
    servlet_path("serverstatus", server_status.ServerStatusView.as_view(), "serverstatus"),
    servlet_path("authentication", views.AuthenticationView.as_view(), "authentication"),
    servlet_path("authentication/revoke", views.RevokeTokenView.as_view(), "authentication-revoke"),
    servlet_path("whoami", whoami.WhoAmIView.as_view(), "whoami"),
    servlet_path("account", views.AccountView.as_view(), "account"),
    servlet_path("account/bots", views.AccountBotsView.as_view(), "account-bots"),
    servlet_path("bousers", views.BackOfficeUsersView.as_view(), "bo-users"),
    servlet_path("bousers/<login>", views.BackOfficeUserView.as_view(), "bo-user"),
    servlet_path("competencies", views.CompetenciesView.as_view(), "competencies"),
    servlet_path("competencies/<name>", views.CompetencyView.as_view(), "competency"),
]
