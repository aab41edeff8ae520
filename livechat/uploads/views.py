"""/servlet/fileupload (the chatbox sends a file; it reads an HTML answer) and the operators' download of
a visitor's file (/livechat/uploads/<id>/, back-office session, always as an attachment)."""

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404
from django.http.multipartparser import MultiPartParserError
from django.utils.decorators import method_decorator
from django.views.decorators.clickjacking import xframe_options_exempt
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from accounts.permissions import can
from bots.servlet.errors import InvalidField, ServletError
from bots.servlet.params import ServletParams, query_fields
from bots.servlet.schema import error_responses
from bots.servlet.views import ServletView

from ..models import ChatUpload
from . import answer, receiving, storage, types

FIELD = "dydu-upload-file"
HTML = "text/html"
PAGE = {"type": "string", "description": "An HTML page holding {api:'<cb>', params:{filesUploaded, status}}."}


def _page(description: str) -> OpenApiResponse:
    return OpenApiResponse(PAGE, description=description)


@extend_schema(
    tags=["Chat"],
    summary="The chatbox sends a file to the dialog (shown to the operator); answers an HTML page for CV5",
    description=(
        "Multipart body with the file in the field named by `fin` (CV5: `dydu-upload-file`). Accepted: "
        f"{types.allowed_summary()}; the declared type, the extension and the file's first bytes must agree. "
        "Files up to 10 MB (CHAT_UPLOAD_MAX_BYTES); a larger body is refused with 413 from its Content-Length, "
        "before it is read. The answer is an HTML page holding one object literal "
        '`{api:\'<cb>\', params:{"filesUploaded":["name"],"status":"success"|"fail"}}` (failures add '
        "`error` and `code`)."
    ),
    parameters=[
        OpenApiParameter("ctx", str, required=True, description="The dialog's context id."),
        OpenApiParameter("fin", str, description=f"The file field's name (default `{FIELD}`)."),
        OpenApiParameter("cb", str, description="The chatbox's callback name, written back as `api`."),
        OpenApiParameter("origin", str, description="The chatbox page's origin; the page posts its answer there."),
    ],
    request={
        "multipart/form-data": {
            "type": "object",
            "properties": {FIELD: {"type": "string", "format": "binary"}},
        }
    },
    responses={
        (200, HTML): _page("Stored: status success, the file's name in filesUploaded."),
        (400, HTML): _page("Bad input: no file, an empty file, a broken body, a bad cb or origin (status fail)."),
        (403, HTML): _page("The origin is not one this server accepts (ORIGIN_NOT_ALLOWED)."),
        (404, HTML): _page("No live dialog has this context id (UNKNOWN_CONTEXT)."),
        (413, HTML): _page("The file is larger than CHAT_UPLOAD_MAX_BYTES (TOO_LARGE)."),
        (415, HTML): _page(
            "A type that is not accepted, or a file whose name or content is not the type it declares "
            "(UNSUPPORTED_FILE_TYPE, FILE_TYPE_MISMATCH, FILE_CONTENT_MISMATCH)."
        ),
        **{(status, "application/json"): response for status, response in error_responses(413, 503).items()},
    },
)
@method_decorator(xframe_options_exempt, name="dispatch")  # CV5 may post the form into a hidden frame
class FileUploadView(ServletView):
    @staticmethod
    def before_body(request):
        """The page refusing the call from its query string and headers alone (the body is the file): no
        live dialog, an origin not allowed, a bad callback; here, and before the body is read by
        bots/servlet/before_body.py. None when the file may be sent."""
        return _checked_call(getattr(request, "_request", request)).refusal

    def post(self, request):
        http_request = request._request
        call = _checked_call(http_request)
        if call.refusal is not None:
            return call.refusal
        try:
            uploaded = _uploaded_file(http_request, call.query.text("fin") or FIELD)
            upload = receiving.receive(call.dialog, uploaded)
        except types.Refused as refused:
            return answer.page(call.callback, call.origin, [], status=415, error=refused.message, code=refused.code)
        except ServletError as error:
            return call.refused(error)
        return answer.page(call.callback, call.origin, [upload.name])


@dataclass
class _Call:
    """What the query string and headers say of a file upload; `refusal` is the page refusing it, if any."""

    callback: str = ""
    origin: str = ""
    query: ServletParams | None = None
    dialog: object = None
    refusal: object = None

    def refused(self, error: ServletError):
        return answer.page(self.callback, self.origin, [], status=error.status, error=error.message, code=error.code)


def _checked_call(http_request) -> _Call:
    call = _Call()
    try:
        call.query = _query(http_request)
        call.callback = answer.callback_name(call.query.text("cb"))
        call.origin = answer.checked_origin(call.query.text("origin"))
        answer.checked_origin(_origin_header(http_request))
        call.dialog = receiving.dialog_for(call.query.text("ctx", "contextId", "contextUuid", required=True))
    except ServletError as error:
        call.refusal = call.refused(error)
    return call


def _query(http_request) -> ServletParams:
    """The call's query-string fields only: the body is the file, read once by Django's parser."""
    return ServletParams(query_fields(http_request))


def _origin_header(http_request) -> str:
    value = http_request.headers.get("Origin", "")
    return "" if value == "null" else value  # a sandboxed frame's origin names no site


def _uploaded_file(http_request, field: str):
    if not (http_request.content_type or "").lower().startswith("multipart/form-data"):
        raise InvalidField("body", f"a multipart/form-data body with the file in the field '{field}'")
    try:
        files = http_request.FILES
    except MultiPartParserError as error:
        raise InvalidField("body", f"not readable as multipart/form-data ({str(error)[:100]})") from None
    uploaded = files.get(field)
    if uploaded is None:
        raise InvalidField(field, "no file was sent in this field")
    return uploaded


@login_required(login_url="admin:login")
def download(request, upload_id: str):
    """A visitor's file, for the operators and administrators of its bot's account only; always a download
    (never shown inline), under its own type, never sniffed."""
    upload = ChatUpload.objects.filter(pk=int(upload_id)).select_related("bot").first()
    if upload is None or not can(request.user, "livechat.operate", bot=upload.bot):
        raise Http404("No such file.")
    try:
        stored = storage.open_stored(upload.stored_name)
    except FileNotFoundError:
        raise Http404("The file is no longer stored.") from None
    response = FileResponse(stored, as_attachment=True, filename=upload.name, content_type=upload.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Cache-Control"] = "private, no-store"
    return response
