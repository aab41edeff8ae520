"""/servlet/history?context=…&format=html&userLabel=…&botLabel=…: the page CV5 opens and prints."""

from django.utils.translation import pgettext_lazy
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from bots.servlet.errors import ServletError
from bots.servlet.schema import error_responses
from bots.servlet.views import ServletView

from .page import not_found_page, printable_dialog, transcript_page

HTML = "text/html"
PAGE = {"type": "string", "description": "An HTML page."}
FORMATS = {"html", ""}
PARAMETERS = [
    OpenApiParameter("context", str, required=True, description="The dialog's context id (also contextId, ctx)."),
    OpenApiParameter("format", str, description="`html`, the one format (default)."),
    OpenApiParameter("userLabel", str, description="The visitor's name on the page (default Moi; Me in English)."),
    OpenApiParameter("botLabel", str, description="The bot's name on the page (default Chatbot)."),
]
ANSWERS = {
    (200, HTML): OpenApiResponse(PAGE, description="The printable transcript."),
    (400, HTML): OpenApiResponse(PAGE, description="A format other than html, or a field that cannot be read."),
    (404, HTML): OpenApiResponse(PAGE, description="No live dialog has this context id."),
    **{(status, "application/json"): response for status, response in error_responses(413, 503).items()},
}


@extend_schema(
    tags=["Chat"],
    summary="The printable transcript of a dialog (the chatbox's print menu)",
    parameters=PARAMETERS,
    responses=ANSWERS,
)
class TranscriptView(ServletView):
    def get(self, request):
        try:
            params = self.params(request)
            output = params.text("format").strip().lower()
            if output not in FORMATS:
                return not_found_page(request, 400, pgettext_lazy("transcript", "Only the html format is available."))
            dialog = printable_dialog(params.text("context", "contextId", "contextUuid", "ctx"))
            if dialog is None:
                return not_found_page(request)
            return transcript_page(request, dialog, params.text("userLabel"), params.text("botLabel"))
        except ServletError as error:
            return not_found_page(request, error.status, error.message)
