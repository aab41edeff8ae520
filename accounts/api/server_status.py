"""The Server status servlet: anonymous callers get status, date and version; details need a token with
status.details (accounts' permissions), the checks each app registers (bots/status)."""

import json

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema

from accounts.permissions import authenticate_if_present, authorize
from bots.servlet.authorization import ServletAuthorization
from bots.servlet.envelope import plain_json
from bots.servlet.schema import OBJECT, PROTECTED_ERRORS, plain_schema, responses
from bots.servlet.views import ServletView
from bots.status import report


@extend_schema(
    tags=["Server status"],
    summary="Server status: anonymous callers get status, date and version; details need a token",
    parameters=[
        OpenApiParameter("details", bool, description="Add volumes and applications (needs status.details)."),
        OpenApiParameter("pretty", bool, description="Indent the JSON."),
    ],
    request=None,
    # Bad credentials are an error only with details=true (401), as is a role without status.details (403).
    # With the database or the cache down it still answers 200, `status: Ko`, the failing check named.
    responses=responses(
        {200: plain_schema(OBJECT, "status, date, version; with details, the checks.")},
        *(status for status in PROTECTED_ERRORS if status != 503),
    ),
)
class ServerStatusView(ServletView):
    authentication_classes = [ServletAuthorization]

    def get(self, request):
        params = self.params(request)
        pretty = params.boolean("pretty")
        details = params.boolean("details")
        has_credentials = bool((request.META.get("HTTP_AUTHORIZATION") or "").strip())
        if details and has_credentials:
            authorize(request, None, "status.details")
            body = report.full(details=True)
        elif has_credentials and authenticate_if_present(request) is not None:
            # Without details, bad credentials are not an error: the chatbox may send an OIDC token.
            body = report.full(details=False)
        else:
            body = report.summary()
        if pretty:
            text = json.dumps(body, indent=2, ensure_ascii=False)
            return HttpResponse(text + "\n", content_type="application/json")
        return plain_json(body)

    def post(self, request):
        return self.get(request)
