"""What each back-office list is for and how it fills, said when it is empty (instead of the theme's
"Create a new item", wrong where nothing is made by hand): one sentence per model, in both languages."""

from django.utils.translation import gettext_lazy as _

ABOUT = {
    "dialogs.gdprrequest": _(
        "Visitors' requests to get or delete their data. They arrive from the chatbox's data-protection "
        "form; you answer each one here by sending the data, deleting it or ignoring the request."
    ),
    "knowledge.galleryimage": _(
        "Images your answers can show. Editors upload them here, or they come with a knowledge-base import."
    ),
    "knowledge.ignoredgroup": _(
        "Groups of misunderstood questions set aside from learning, with the reason. A group lands here when "
        "someone ignores it on the Misunderstood questions page; deleting it brings its questions back there."
    ),
    "knowledge.misunderstoodinput": _(
        "Questions the bot did not understand. They arrive as visitors talk to the bot; nothing to review for now."
    ),
    "dialogs.dialog": _("Every conversation with the bot. Dialogs appear as visitors talk to it through the chatbox."),
    "dialogs.clienterror": _(
        "Errors that chatboxes reported to the server. They arrive on their own when a chatbox fails; none so far."
    ),
    "bots.servererror": _(
        "Chat calls the server answered with an error, counted per minute. They are written by the server; "
        "none in the last 30 days."
    ),
    "accounts.apitoken": _(
        "Tokens for the administration API. One is made each time someone signs in on the token page or "
        "calls the Authentication servlet; you revoke them here."
    ),
    "accounts.botapiaccess": _(
        "Each bot's UUID, with links to the API console and the token page. A row appears for every bot of the account."
    ),
    "preferences.preferencechange": _(
        "Every change to a bot's or the account's preferences: who, when, from what to what. A row is "
        "written each time a preference is set or deleted, here or through the API."
    ),
    "livechat.operator": _(
        "The people who answer visitors in live chat. A profile is made when an operator or an "
        "administrator first opens the live-chat console."
    ),
    "livechat.livechatsettings": _(
        "How live chat behaves for each bot: queue, timeouts, callback offer. Each bot gets its row, with "
        "the defaults, when it is created."
    ),
    "livechat.livechatrequest": _(
        "Each time a dialog was handed to a human: who waited, who answered, how it ended. A row appears "
        "when a visitor asks for an operator."
    ),
    "livechat.callback": _(
        "Visitors who asked to be called back. Requests come from the chatbox's callback offer when no "
        "operator is available."
    ),
}


def about(opts) -> str:
    """The sentence for the list of the model whose options are `opts` ('' when it has none)."""
    return ABOUT.get(opts.label_lower, "")
