"""Routes of the Knowledge base, Transfer Bot Data and Matching groups servlet groups."""

from bots.servlet.routes import servlet_path

from . import views

urlpatterns = [
    servlet_path(
        "bot/knowledgebase/export/<bot_uuid>/<exclude_gallery>",
        views.KnowledgeBaseExportView.as_view(),
        "knowledgebase-export",
    ),
    servlet_path("bot/knowledgebase/export/<bot_uuid>", views.KnowledgeBaseExportView.as_view()),
    servlet_path(
        "bot/knowledgebase/import/<bot_uuid>", views.KnowledgeBaseImportView.as_view(), "knowledgebase-import"
    ),
    servlet_path(
        "bot/knowledgebase/status/<bot_uuid>", views.KnowledgeBaseStatusView.as_view(), "knowledgebase-status"
    ),
    servlet_path(
        "bot/knowledgebase/delete/<bot_uuid>/<exclude_gallery>",
        views.KnowledgeBaseDeleteView.as_view(),
        "knowledgebase-delete",
    ),
    servlet_path("bot/knowledgebase/delete/<bot_uuid>", views.KnowledgeBaseDeleteView.as_view()),
    servlet_path("bot/gallery/export/<bot_uuid>", views.GalleryExportView.as_view(), "gallery-export"),
    servlet_path("bot/gallery/import/<bot_uuid>", views.GalleryImportView.as_view(), "gallery-import"),
    servlet_path("bot/data/export/<bot_uuid>/<exclude_gallery>", views.BotDataExportView.as_view(), "botdata-export"),
    servlet_path("bot/data/export/<bot_uuid>", views.BotDataExportView.as_view()),
    servlet_path("bot/data/import/<bot_uuid>", views.BotDataImportView.as_view(), "botdata-import"),
    servlet_path("bot/matchinggroups/<bot_uuid>", views.MatchingGroupsView.as_view(), "matchinggroups"),
]
