"""URL map: the servlet API under /servlet/api/ and /api/ (the chatbox drops /servlet on local hosts),
the old servlet paths, the back office, the API console and the demo chatbox."""

from django.contrib import admin
from django.urls import include, path, re_path
from django.utils.translation import gettext_lazy as _
from django.views.i18n import JavaScriptCatalog

from accounts.pages import authentication_page
from bots.servlet.console import ConsoleSchemaView
from bots.servlet.console_page import ConsolePageView
from livechat.api.views import ChatHttpView

# The analytics page reads every app, so it lives above them (reporting/) and adds its URLs to the admin site here.
from reporting.analytics import admin as analytics_admin  # noqa: F401

servlet_api = [
    path("", include("bots.api.urls")),
    path("", include("dialogs.api.urls")),
    path("", include("accounts.api.urls")),
    path("", include("preferences.api.urls")),
    path("", include("knowledge.api.urls")),
    path("", include("livechat.api.urls")),
    path("", include("dialogs.bulk.urls")),
    path("", include("dialogs.logs.urls")),
    path("", include("knowledge.external.urls")),
    path("", include("accounts.saml.urls")),
    path("", include("dialogs.surveys.urls")),
]

# The back office is the product's, not "Django administration".
admin.site.site_header = _("Bot platform · Back office")
admin.site.site_title = _("Back office")
admin.site.index_title = _("Bots, knowledge, dialogs and live chat")

# A request Django refuses before any view (a Host not in ALLOWED_HOSTS): JSON on servlet paths.
handler400 = "bots.servlet.bad_request.bad_request"
# Pages refused, missing or failed: the back office's theme and language, JSON on servlet paths.
handler403 = "accounts.error_pages.permission_denied"
handler404 = "accounts.error_pages.page_not_found"
handler500 = "accounts.error_pages.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the back office's language switcher
    # gettext() for the live-chat console's scripts (static/livechat), in the page's language: djangojs.po.
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["livechat"]), name="javascript-catalog"),
    path("servlet/authentication.html", authentication_page, name="authentication-page"),
    path("authentication.html", authentication_page),
    path("servlet/api/schema/", ConsoleSchemaView.as_view(), name="api-schema"),
    path("servlet/api/doc/", ConsolePageView.as_view(url_name="api-schema"), name="api-console"),
    # The old servlet's chat call (CV5's polling form of the live-chat frames), with or without /servlet.
    re_path(r"^(?:servlet/)?chatHttp/?$", ChatHttpView.as_view(), name="chat-http"),
    path("livechat/", include("livechat.pages")),
    # The old servlet's other paths the chatbox calls: file upload, printable transcript, SAML's pages.
    path("", include("livechat.uploads.urls")),
    path("", include("dialogs.transcript.urls")),
    path("", include("knowledge.gallery_images")),  # the gallery's images that answers show
    path("", include("accounts.saml.site_urls")),
    re_path(r"^servlet/api/", include(servlet_api)),
    re_path(r"^api/", include(servlet_api)),
    path("", include("bots.pages")),
]
