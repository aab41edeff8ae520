"""Routes of this servlet group (mounted under /servlet/api/ and /api/ by config/urls.py)."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path("externalmatchers/rasa/export/<bot_uuid>", views.RasaExportView.as_view(), "rasa-export"),
    servlet_path("externalmatchers/rasa/status/<bot_uuid>", views.RasaStatusView.as_view(), "rasa-status"),
    servlet_path("externalmatchers/rasa/import/<bot_uuid>", views.RasaImportView.as_view(), "rasa-import"),
]
