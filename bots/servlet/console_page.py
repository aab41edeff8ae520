"""The API console's page: drf-spectacular's Swagger UI with the platform's additions (api_console.js):
chat answers shown decoded under the raw one, and talks sent as test dialogs."""

from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerView

# The calls that make or extend a dialog or a visit: sent from the console, they are test dialogs.
TEST_DIALOG_CALLS = r"/(?:servlet/)?api/chat/(?:talk|context|welcomecall)(?:/|$)"


class ConsolePageView(SpectacularSwaggerView):
    template_name = "servlet/api_console.html"

    @extend_schema(exclude=True)  # the page, not a call of the API (as drf-spectacular's own)
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        response.data["console"] = {
            "language": get_language(),
            "testDialogCalls": TEST_DIALOG_CALLS,
            "decodedTitle": _("Decoded values"),
            "decodedHelp": _(
                "Every string under values is base64 of its UTF-8 text: here it is decoded (a text that is JSON "
                "is shown as JSON). The raw answer above is what the server sent."
            ),
            "testDialog": _(
                "Sent as a test dialog (qualificationMode=true): draft knowledge answers too, and the dialog never "
                "counts in analytics or learning."
            ),
        }
        return response
