"""The back office's home page, one per role (unfold's DASHBOARD_CALLBACK): administrators see the day's
figures, what to review, the live chat's load and the vectors' jobs; editors their knowledge and learning;
operators the live chat; readers dialogs and analytics. Each card links only pages the user may open."""

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from accounts.models import Role
from accounts.navigation import entries
from accounts.permissions import role_of
from bots.admin_scoping import account_id_of, bots_of

from . import dashboard_figures as figures

# The cards of each role, in the order they are shown.
CARDS = {
    Role.ADMINISTRATOR: ("today", "review", "live_chat", "vectors"),
    Role.EDITOR: ("knowledge", "review", "today", "vectors"),
    Role.OPERATOR: ("live_chat", "dialogs"),
    Role.READER: ("today", "dialogs", "review"),
}
INTRODUCTIONS = {
    Role.ADMINISTRATOR: _("Today on your bots, what to review and who is answering visitors."),
    Role.EDITOR: _("Your knowledge and what visitors asked that the bots did not understand."),
    Role.OPERATOR: _("The live chat now: visitors waiting, dialogs with an operator, callbacks to make."),
    Role.READER: _("Today's dialogs and how well the bots understood, with the pages to read more."),
}
# Each card's links: sidebar entries by link, shown when the user may open them.
CARD_LINKS = {
    "today": ("/admin/bots/analytics/", "/admin/dialogs/dialog/"),
    "review": ("/admin/knowledge/misunderstoodinput/", "/admin/knowledge/ignoredgroup/"),
    "live_chat": ("/livechat/", "/admin/livechat/livechatrequest/", "/admin/livechat/callback/"),
    "vectors": ("/admin/knowledge/exchange/",),
    "knowledge": ("/admin/knowledge/knowledgeitem/", "/admin/knowledge/exchange/"),
    "dialogs": ("/admin/dialogs/dialog/", "/admin/bots/analytics/", "/livechat/"),
}
JOB_STATES = {
    "pending": pgettext_lazy("vector job", "waiting"),
    "running": pgettext_lazy("vector job", "computing"),
    "done": pgettext_lazy("vector job", "done"),
    "failed": pgettext_lazy("vector job", "failed"),
}
# The shortcuts under the cards: sidebar entries by link, shown when the user may open them.
SHORTCUTS = {
    Role.ADMINISTRATOR: (
        "/admin/bots/bot/",
        "/admin/auth/user/",
        "/admin/livechat/operator/",
        "/admin/livechat/livechatsettings/",
        "/admin/accounts/botapiaccess/",
    ),
    Role.EDITOR: ("/admin/knowledge/tag/", "/admin/knowledge/galleryimage/", "/admin/bots/bot/"),
    Role.OPERATOR: ("/admin/livechat/openinghours/", "/admin/knowledge/knowledgeitem/"),
    Role.READER: ("/admin/knowledge/knowledgeitem/", "/admin/bots/bot/"),
}


def dashboard(request, context: dict) -> dict:
    role = role_of(request.user) or Role.READER
    allowed = {entry["link"]: entry["title"] for entry in entries(request)}
    mine = figures.bots(bots_of(request.user))
    cache = {}
    cards = [_card(name, mine, request.user, cache) for name in CARDS[role]]
    for card in cards:
        if card is not None:
            card["links"] = [(link, allowed[link]) for link in CARD_LINKS.get(card["name"], ()) if link in allowed]
    context.update(
        {
            "title": _("Home"),
            "home_role": role,
            "home_introduction": INTRODUCTIONS[role],
            "home_has_bots": bool(mine.names),
            "home_cards": [card for card in cards if card is not None],
            "home_links": allowed,
            "home_shortcuts": [(link, allowed[link]) for link in SHORTCUTS[role] if link in allowed],
        }
    )
    return context


def _card(name: str, mine: figures.Bots, user, cache: dict) -> dict | None:
    if not mine.names and name != "live_chat":
        return None  # figures of no bot: the page says there is none yet
    card = {"name": name}
    if name in ("today", "review"):
        # One count serves both cards (today's questions and the week's to review).
        if "today" not in cache:
            cache["today"] = figures.today(mine)
        card["today"] = cache["today"]
    elif name == "live_chat":
        card["live_chat"] = figures.live_chat(mine, account_id_of(user))
    elif name == "vectors":
        card["jobs"] = figures.vector_jobs(mine)
        for job in card["jobs"]:
            job.link = reverse("admin:knowledge_exchange", args=[job.bot_id])
            job.state_label = JOB_STATES.get(job.state, job.state)
    elif name == "knowledge":
        card["knowledge"] = figures.knowledge(mine)
    return card
