"""Routes of the Dialogs servlet group (mounted under /servlet/api/ and /api/ by config/urls.py)."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    # Before the dialog route: "dialogs/export/<uuid>" would match "dialogs/<bot>/<context>" too.
    servlet_path("dialogs/export/<bot_uuid>", views.DialogsExportView.as_view(), "dialogs-export"),
    servlet_path("dialogs/<bot_uuid>/<context_id>", views.DialogView.as_view(), "dialogs-dialog"),
]
