"""OpenAPI description of the Chat servlet group (dialogs/api/views.py): each call's form fields and the
values its answers carry, for the API console (bots/servlet/schema.py builds the answers from them)."""

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from bots.servlet.schema import B64, B64_OBJECT, BOOLEAN, INTEGER, envelope_schema


def _text(help_text: str = "", required: bool = False):
    return serializers.CharField(required=required, allow_blank=not required, help_text=help_text)


def _flag(help_text: str = ""):
    return serializers.BooleanField(required=False, help_text=help_text)


CONTEXT_HELP = "The context id (also contextUUID, contextUuid, ctx)."
VISITOR = {
    "language": _text("Language code (fr, en…); unknown: the bot's default."),
    "space": _text("Consultation space; unknown: the default space."),
    "clientId": _text("The visitor's browser id (previous dialogs, GDPR)."),
    "qualificationMode": _flag("Test dialog: unpublished knowledge, left out of analytics."),
}
TALK_FORM = inline_serializer(
    "TalkForm",
    {
        "userInput": _text(
            "What the visitor wrote, HTML-escaped; only the first 600 characters are used. Special inputs: "
            "#welcome#, #reset#, #livechatleavequeue#, #dydumailto:{contextId}:{email}# (e-mails the dialog's "
            "transcript; 3 per dialog per hour), _pushcondition_:{id} and _goalpage_:{id} (push rules)."
        ),
        "contextId": _text(CONTEXT_HELP + " Unknown, malformed or revoked: a new context."),
        **VISITOR,
        "browser": _text(),
        "os": _text(),
        "userUrl": _text("The page the visitor is on."),
        "alreadyCame": _flag(),
        "doNotRegisterInteraction": _flag("Answer without storing the exchange (#welcome# on a reload)."),
        "enableLanguageDetection": _flag("Also disableLanguageDetection, enableLanguageDectection."),
        "extraParameters": _text(
            'The click a talk comes from: a JSON object ({"type": "reword_auto"}) or a bare type. Page links '
            "(redirection, redirection_newpage, redirection_javascript, redirection_invalidlink, "
            "before_close_dialog) are recorded and answered with nothing (DMLinkClicked); question links "
            "(reword_auto, redirection_knowledge with an optional knowledgeId, redirection_consultation_space "
            "with the space, redirection_personnality, reword_teaser, exportable_faq, reword_feedback) answer "
            "their item; a click is never answered as misunderstood."
        ),
        "variables": _text("Context variables: a JSON object of strings, or key=value,key=value."),
        "solutionUsed": _text("ASSISTANT, LIVECHAT…"),
        "contextType": _text(),
        "mode": _text("base64 of Synchron / Asynchron / polling."),
        "competency": _text("Live chat: the operators' competency this visitor needs."),
    },
)
CONTEXT_FORM = inline_serializer("ContextForm", {"contextId": _text(CONTEXT_HELP)})
WELCOME_FORM = inline_serializer(
    "WelcomeCallForm", {"contextId": _text(CONTEXT_HELP), **VISITOR, "variables": _text("A JSON object.")}
)
HISTORY_FORM = inline_serializer("HistoryForm", {"contextId": _text(CONTEXT_HELP + " Or `dialog`.", required=True)})
TOP_FORM = inline_serializer(
    "TopKnowledgeForm",
    {
        **VISITOR,
        "period": _text("Last24Hours, Last7Days, Last30Days (default), Last365Days, Always…"),
        "maxKnowledge": serializers.IntegerField(required=False, min_value=1, help_text="1 to 100 (default 3)."),
        "tagID": _text("A tag's id or name (also tagId, tag)."),
        "includeTagChildren": _flag(),
    },
)
SEARCH_FORM = inline_serializer(
    "SearchForm",
    {
        "search": _text("What the visitor has typed so far.", required=True),
        "language": VISITOR["language"],
        "space": VISITOR["space"],
        "limit": serializers.IntegerField(required=False, min_value=1, help_text="1 to 50 (default 10)."),
        "onlyShowRewordables": _flag("Default true."),
    },
)
FEEDBACK_FORM = inline_serializer(
    "FeedbackForm",
    {
        "contextId": _text(CONTEXT_HELP, required=True),
        "feedBack": serializers.ChoiceField(["positive", "negative", "withoutAnswer"], help_text="Also feedback."),
    },
)
COMMENT_FORM = inline_serializer(
    "FeedbackCommentForm", {"contextId": _text(CONTEXT_HELP, required=True), "comment": _text(required=True)}
)
REASON_FORM = inline_serializer(
    "InsatisfactionForm",
    {
        "contextId": _text(CONTEXT_HELP, required=True),
        "choiceKey": serializers.IntegerField(min_value=0, max_value=2),
    },
)
NEW_CONTEXT_FORM = inline_serializer(
    "NewContextForm",
    {
        **{name: field for name, field in TALK_FORM.fields.items() if name not in ("userInput", "contextId")},
        "pureLiveChat": _flag(),
    },
)
PREVIOUS_FORM = inline_serializer("PreviousDialogsForm", {"clientId": _text(required=True)})
CLIENT_ERROR_FORM = inline_serializer(
    "ClientErrorForm",
    {
        "error": _text(required=True),
        "message": _text(required=True),
        "contextId": _text(CONTEXT_HELP),
        "solutionUsed": _text(),
        "stackTrace": _text(),
        "jsCreation": _text(),
        "browser": _text(),
        "os": _text(),
        "userUrl": _text(),
    },
)
VARIABLE_FORM = inline_serializer(
    "VariableForm",
    {
        "contextId": _text(CONTEXT_HELP, required=True),
        "name": _text(required=True),
        "value": _text("Empty: the variable is deleted."),
        "delete": _flag("true: the variable is deleted (whatever the value)."),
    },
)
GDPR_FORM = inline_serializer(
    "GdprForm",
    {
        "clientId": _text(required=True),
        "object": serializers.ChoiceField(["Get", "Delete"]),
        "mail": serializers.EmailField(required=False, help_text="Also email."),
        "language": VISITOR["language"],
    },
)

TALK_VALUES = {
    "knowledgeId": INTEGER,
    "actionId": INTEGER,
    "typeResponse": B64,
    "contextId": B64,
    "serverTime": INTEGER,
    "language": B64,
    "botId": B64,
    "text": B64,
    "hasProfilePicture": BOOLEAN,
    "startLivechat": BOOLEAN,
    "keepPopinMinimized": BOOLEAN,
    "human": BOOLEAN,
    "askFeedback": BOOLEAN,
    "feedbackWording": B64_OBJECT,
}
FEEDBACK_ANSWER = {200: envelope_schema("feedbackResponse", {"interactionId": INTEGER}, required=("interactionId",))}
