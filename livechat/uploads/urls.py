"""Routes outside the servlet API (the old servlet paths, mounted at the site root by config/urls.py)."""

from django.urls import re_path

from . import views

urlpatterns = [
    re_path(r"^(?:servlet/)?fileupload/?$", views.FileUploadView.as_view(), name="chat-fileupload"),
    # The operators' download of a visitor's file (a back-office page, not a servlet call).
    re_path(r"^livechat/uploads/(?P<upload_id>[0-9]{1,18})/?$", views.download, name="livechat-upload"),
]
