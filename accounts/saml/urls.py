"""Routes of this servlet group (mounted under /servlet/api/ and /api/ by config/urls.py)."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path("saml2/status", views.Saml2StatusView.as_view(), "saml2-status"),
    servlet_path("saml2/userinfo", views.Saml2UserInfoView.as_view(), "saml2-userinfo"),
]
