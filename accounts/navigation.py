"""The back office's sidebar, one list for unfold (config/settings.py UNFOLD) and for the page titles'
trail: every page a role may open, grouped as people look for them; `place` tells which group a page is in,
so that the trail over each page names the sidebar's group, never Django's app."""

from dataclasses import dataclass

from django.apps import apps
from django.contrib import admin
from django.utils.functional import lazy
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

HOME = "/admin/"


def _model(title, icon: str, app: str, model: str) -> dict:
    """A model's list, shown to whom its ModelAdmin lets see it (the list's own check: a link opens).
    Without a title, the model's plural name: the entry then reads as the list's own title."""

    def allowed(request) -> bool:
        model_admin = _registered(app, model)
        return model_admin is not None and model_admin.has_view_or_change_permission(request)

    if title is None:
        title = lazy(lambda: capfirst(apps.get_model(app, model)._meta.verbose_name_plural), str)()
    return {"title": title, "icon": icon, "link": f"/admin/{app}/{model}/", "permission": allowed}


def _page(title, icon: str, link: str, permission: str) -> dict:
    """A page of our own (not a model's list), with the dotted path of the check its view makes too."""
    return {"title": title, "icon": icon, "link": link, "permission": permission}


def _registered(app: str, model: str):
    for registered, model_admin in admin.site._registry.items():
        if registered._meta.app_label == app and registered._meta.model_name == model:
            return model_admin
    return None


def _staff(request) -> bool:
    return request.user.is_active and request.user.is_staff


# Each group: its title and, where the servlet API's spec places the pages under a menu, the trail above it
# ("Preferences › API › API access", servlet-api.md §1 and §3).
GROUPS = [
    {"title": "", "items": [_page(_("Home"), "home", HOME, "accounts.navigation._staff")]},
    {
        "title": _("Knowledge"),
        "items": [
            _model(_("Knowledge items"), "quiz", "knowledge", "knowledgeitem"),
            _model(_("Tags"), "label", "knowledge", "tag"),
            _model(_("Matching groups"), "join", "knowledge", "matchinggroup"),
            _model(_("Global sentences"), "chat", "knowledge", "globalsentence"),
            _model(_("Gallery"), "image", "knowledge", "galleryimage"),
            _model(_("Surveys"), "ballot", "dialogs", "survey"),
            _page(
                _("Import / export"),
                "swap_vert",
                "/admin/knowledge/exchange/",
                "knowledge.backoffice.exchange.may_view",
            ),
        ],
    },
    {
        "title": _("Learning"),
        "items": [
            _page(_("Dialogs"), "forum", "/admin/dialogs/dialog/", "dialogs.backoffice.admin.may_view"),
            _page(
                _("Misunderstood questions"),
                "psychology_alt",
                "/admin/knowledge/misunderstoodinput/",
                "dialogs.learning.admin.may_view",
            ),
            _page(
                _("Ignored questions"),
                "visibility_off",
                "/admin/knowledge/ignoredgroup/",
                "dialogs.learning.admin.may_view_ignored",
            ),
        ],
    },
    {
        "title": _("Analytics"),
        "items": [
            _page(_("Bot analytics"), "monitoring", "/admin/bots/analytics/", "reporting.analytics.admin.may_view"),
        ],
    },
    {
        "title": _("Live chat"),
        "items": [
            _page(_("Live chat console"), "support_agent", "/livechat/", "livechat.context.may_open_console"),
            _model(_("Live-chat handovers"), "move_up", "livechat", "livechatrequest"),
            _model(_("Callbacks"), "call", "livechat", "callback"),
            _model(_("Operators"), "headset_mic", "livechat", "operator"),
            _model(_("Live chat settings"), "settings", "livechat", "livechatsettings"),
            _model(None, "schedule", "livechat", "openinghours"),
        ],
    },
    {
        "title": _("Bots"),
        "items": [
            _model(_("Bots"), "smart_toy", "bots", "bot"),
            _model(None, "error", "bots", "servererror"),
            _model(None, "bug_report", "dialogs", "clienterror"),
        ],
    },
    {
        "title": _("Preferences"),
        "items": [
            _model(_("Bot preferences"), "tune", "preferences", "botpreference"),
            _model(_("Account preferences"), "settings_applications", "preferences", "accountpreference"),
            _model(_("Preference changes"), "history", "preferences", "preferencechange"),
        ],
    },
    {
        "title": _("API"),
        "trail": [_("Preferences"), _("API")],
        "items": [
            _model(None, "key", "accounts", "botapiaccess"),
            _model(None, "token", "accounts", "apitoken"),
        ],
    },
    {
        "title": _("Accounts and access"),
        "items": [
            _model(None, "person", "auth", "user"),
            _model(None, "domain", "accounts", "account"),
            _model(None, "workspace_premium", "accounts", "competency"),
            _model(None, "group", "auth", "group"),
        ],
    },
    {
        "title": _("Data protection"),
        "items": [
            _page(_("GDPR requests"), "policy", "/admin/dialogs/gdprrequest/", "dialogs.gdpr.admin.may_view"),
        ],
    },
]


def sidebar(request) -> list[dict]:
    """unfold's SIDEBAR navigation (it checks each entry's permission for the request)."""
    return GROUPS


@dataclass(frozen=True)
class Place:
    """Where a page sits in the sidebar: the group's trail and the entry whose link leads to it."""

    trail: tuple
    title: str
    link: str


def place(path: str) -> Place | None:
    """The sidebar entry a path belongs to: the one whose link is the longest start of the path."""
    best = None
    for group in GROUPS:
        for item in group["items"]:
            link = item["link"]
            if path.startswith(link) and (best is None or len(link) > len(best.link)):
                trail = tuple(group.get("trail") or ([group["title"]] if group["title"] else []))
                best = Place(trail=trail, title=item["title"], link=link)
    return best


def entries(request) -> list[dict]:
    """The entries this request's user may open, as {"group", "title", "link"} (the home page's tests and
    cards use them)."""
    from unfold.sites import UnfoldAdminSite

    check = UnfoldAdminSite._call_permission_callback
    return [
        {"group": group["title"], "title": item["title"], "link": item["link"]}
        for group in GROUPS
        for item in group["items"]
        if check(admin.site, item.get("permission"), request)
    ]
