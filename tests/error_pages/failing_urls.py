"""The site's URLs (and its error handlers) plus two views that fail, for the 500 page's tests."""

from django.urls import path

from config.urls import *  # noqa: F403 (handler400/403/404/500 come with it)
from config.urls import urlpatterns as site


def fails(request):
    raise RuntimeError("a view that fails, for the test of the 500 page")


urlpatterns = [path("admin/fails/", fails), path("servlet/api/fails", fails), path("somewhere/fails/", fails), *site]
