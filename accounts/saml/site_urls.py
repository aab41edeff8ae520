"""Routes outside the servlet API (the old servlet paths, mounted at the site root by config/urls.py):
the service provider's metadata, the start of a login and the assertion consumer service."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path("servlet/saml2/metadata", views.Saml2MetadataView.as_view(), "saml2-metadata"),
    servlet_path("servlet/saml2/login", views.Saml2LoginView.as_view(), "saml2-login"),
    servlet_path("servlet/saml2/acs", views.Saml2AcsView.as_view(), "saml2-acs"),
]
