"""chat/print/{bot}: the printable transcript through the servlet API (for a chatbox that calls only
/servlet/api/ or /api/), the same page as /servlet/history?format=html, for a dialog of that bot."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view

from bots.servlet.errors import ServletError
from bots.servlet.schema import error_responses
from bots.servlet.views import ServletView, get_bot
from dialogs.transcript.page import not_found_page, printable_dialog, transcript_page

HTML = "text/html"
PAGE = {"type": "string", "description": "An HTML page."}
FIELDS = [
    OpenApiParameter("contextUuid", str, description="The dialog's context id (also contextId, ctx)."),
    OpenApiParameter("userLabel", str, description="The visitor's name on the page (default Moi; Me in English)."),
    OpenApiParameter("botLabel", str, description="The bot's name on the page (default Chatbot)."),
]
FORM = {
    "application/x-www-form-urlencoded": {
        "type": "object",
        "properties": {
            "contextUuid": {"type": "string"},
            "userLabel": {"type": "string"},
            "botLabel": {"type": "string"},
        },
    }
}
ANSWERS = {
    (200, HTML): OpenApiResponse(PAGE, description="The printable transcript."),
    (400, HTML): OpenApiResponse(PAGE, description="A field that cannot be read."),
    (404, HTML): OpenApiResponse(PAGE, description="No live dialog of this bot has this context id."),
    **{(status, "application/json"): answer for status, answer in error_responses(404, 413, 503).items()},
}
SUMMARY = "The printable transcript of one of the bot's dialogs (HTML), as /servlet/history?format=html"


@extend_schema_view(
    get=extend_schema(tags=["Chat"], summary=SUMMARY, parameters=FIELDS, responses=ANSWERS),
    post=extend_schema(tags=["Chat"], summary=SUMMARY, request=FORM, responses=ANSWERS),
)
class PrintView(ServletView):
    def get(self, request, bot_uuid):
        bot = get_bot(bot_uuid)  # an unknown bot: the servlet's JSON 404, as on every chat call
        try:
            params = self.params(request)
            dialog = printable_dialog(params.text("contextUuid", "contextId", "contextUUID", "ctx"), bot=bot)
            if dialog is None:
                return not_found_page(request)
            return transcript_page(request, dialog, params.text("userLabel"), params.text("botLabel"))
        except ServletError as error:
            return not_found_page(request, error.status, error.message)

    post = get
