"""Routes outside the servlet API (the old servlet paths, mounted at the site root by config/urls.py)."""

from django.urls import re_path

from . import views

urlpatterns = [
    re_path(r"^(?:servlet/)?history/?$", views.TranscriptView.as_view(), name="dialog-transcript"),
]
