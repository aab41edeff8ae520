"""Servlet groups Knowledge base (export, import, delete), Transfer Bot Data (gallery on its own,
bot data: knowledge base and preferences) and Matching groups. Thin views: check who asks, read the
path, call knowledge.exchange, answer JSON (or stream the file).

Every call needs a token (accounts.permissions): 401 without valid credentials, 404 for an unknown
bot, 403 for a bot of another account or a role that may not, 400 for a bad path segment; each call's
schema names every status it may answer (bots/servlet/schema.py).
"""

import re
import unicodedata
from urllib.parse import quote

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from accounts.permissions import authorize
from accounts.servlet import permitted_bot
from bots.servlet.envelope import plain_json
from bots.servlet.errors import TooManyRequests
from bots.servlet.params import ServletParams
from bots.servlet.schema import OBJECT, PROTECTED_RESOURCE_ERRORS, plain_schema, responses
from bots.servlet.views import ServletView

from .. import exchange
from ..exchange.exports import ExportSlot, SlotStream
from ..models import MatchingGroup
from ..vectors.progress import knowledge_base_status
from .uploads import received_file

KNOWLEDGE_BASE = ["Knowledge base"]
TRANSFER = ["Transfer Bot Data"]
MATCHING_GROUPS = ["Matching groups"]
XML = "application/xml; charset=utf-8"
UPLOAD = {
    "multipart/form-data": {
        "type": "object",
        "properties": {"file": {"type": "string", "format": "binary"}},
        "required": ["file"],
    },
    "application/xml": {"type": "string", "format": "binary"},
}
EXCLUDE_GALLERY = OpenApiParameter(
    "exclude_gallery",
    bool,
    OpenApiParameter.PATH,
    description="excludeGalleryContent: true leaves the image gallery out.",
)
FILE_RESPONSE = OpenApiResponse({"type": "string", "format": "binary"}, description="The XML file, as a download.")
REPORT = {200: plain_schema(OBJECT, "What was done: counts per kind, duration.")}
# An export runs one at a time per user (429 EXPORT_RUNNING); password checks may answer 429 too.
EXPORT_ANSWERS = responses({(200, "application/xml"): FILE_RESPONSE}, *PROTECTED_RESOURCE_ERRORS)
# A file that is not valid is a 400 with its line and column; one that drops what is still used, 409.
IMPORT_ANSWERS = responses(REPORT, *PROTECTED_RESOURCE_ERRORS, 409)


def path_flag(value: str | None, name: str = "excludeGalleryContent") -> bool:
    # The one parser of servlet booleans: true/false (and 1/0, yes/no); anything else is a 400.
    return ServletParams({name: value or ""}).boolean(name)


def download_name(bot, what: str) -> str:
    safe = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', "-", bot.name).strip(" .-") or "bot"
    return f"{safe} - {what} - {timezone.localdate().isoformat()}.xml"


def attachment(filename: str) -> str:
    """A download name every client reads: plain ASCII (accents dropped, other signs as "-"), and
    the exact UTF-8 name for the clients that can."""
    plain = "".join(
        char if char.isascii() else "" if unicodedata.combining(char) else "-"
        for char in unicodedata.normalize("NFKD", filename)
    )
    plain = " ".join(plain.replace('"', "'").replace("\\", "-").split())
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


def file_response(request, chunks, filename: str) -> StreamingHttpResponse:
    """A download streamed as it is produced. Under ASGI each chunk is made in the request's own
    thread (Django would otherwise gather a synchronous stream in memory first)."""
    asgi = isinstance(getattr(request, "_request", request), ASGIRequest)
    response = StreamingHttpResponse(AsyncChunks(chunks) if asgi else chunks, content_type=XML)
    response["Content-Disposition"] = attachment(filename)
    response["X-Content-Type-Options"] = "nosniff"
    return response


class AsyncChunks:
    """A synchronous stream served asynchronously, one chunk at a time; Django closes it (and so
    the export's database transaction) in that same thread when the response ends."""

    def __init__(self, chunks):
        self.chunks = chunks

    def __aiter__(self):
        return self

    async def __anext__(self) -> bytes:
        chunk = await sync_to_async(next, thread_sensitive=True)(self.chunks, None)
        if chunk is None:
            raise StopAsyncIteration
        return chunk

    def close(self):
        self.chunks.close()


def exclusive_export(user, chunks):
    """The export's chunks, if this user runs no other export now; 429 otherwise."""
    slot = ExportSlot(user.pk)
    if not slot.acquire():
        raise TooManyRequests(
            "An export of yours is already running; only one export at a time per user. "
            "Wait for it to finish and try again.",
            code="EXPORT_RUNNING",
        )
    return SlotStream(chunks, slot)


@extend_schema(
    tags=KNOWLEDGE_BASE,
    summary="Export the bot's knowledge base as an XML file",
    parameters=[EXCLUDE_GALLERY],
    responses=EXPORT_ANSWERS,
)
class KnowledgeBaseExportView(ServletView):
    def get(self, request, bot_uuid, exclude_gallery=None):
        bot, user = permitted_bot(request, bot_uuid, "knowledge.read")
        gallery = not path_flag(exclude_gallery)
        chunks = exclusive_export(user, exchange.export_knowledge_base(bot, gallery=gallery))
        return file_response(request, chunks, download_name(bot, "knowledge base"))


@extend_schema(
    tags=KNOWLEDGE_BASE,
    summary="Import an XML file as the bot's knowledge base (replaces it in one transaction)",
    request=UPLOAD,
    responses=IMPORT_ANSWERS,
)
class KnowledgeBaseImportView(ServletView):
    @staticmethod
    def before_body(request, bot_uuid):
        """What is checked before the file is read (here, and from the headers by bots/servlet/before_body.py)."""
        return permitted_bot(request, bot_uuid, "knowledge.edit")

    def post(self, request, bot_uuid):
        bot, user = self.before_body(request, bot_uuid)
        with received_file(request) as source:
            report = exchange.import_knowledge_base(bot, source, user=user)
        return plain_json(report.as_json())


@extend_schema(
    tags=KNOWLEDGE_BASE,
    summary="The knowledge base's status: its formulations' vectors (computed in the background after an import)",
    responses=responses(
        {
            200: plain_schema(
                {
                    "type": "object",
                    "properties": {
                        "botUUID": {"type": "string"},
                        "knowledgeVersion": {"type": "integer"},
                        "matching": {"type": "string", "enum": ["embeddings", "lexical"]},
                        "vectors": OBJECT,
                    },
                },
                "vectors: state (none, pending, running, done, failed), done and total formulations; matching: "
                "what answers now (lexical while vectors are pending or running).",
            )
        },
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class KnowledgeBaseStatusView(ServletView):
    def get(self, request, bot_uuid):
        bot, _ = permitted_bot(request, bot_uuid, "knowledge.read")
        return plain_json(knowledge_base_status(bot))


@extend_schema(
    tags=KNOWLEDGE_BASE,
    summary="Delete the bot's knowledge base (and its gallery unless excluded)",
    parameters=[EXCLUDE_GALLERY],
    responses=responses({200: plain_schema(OBJECT, "What was deleted, per kind.")}, *PROTECTED_RESOURCE_ERRORS, 409),
)
class KnowledgeBaseDeleteView(ServletView):
    def delete(self, request, bot_uuid, exclude_gallery=None):
        bot, _ = permitted_bot(request, bot_uuid, "knowledge.edit")
        gallery = not path_flag(exclude_gallery)
        return plain_json(exchange.delete_knowledge_base(bot, gallery=gallery))


@extend_schema(
    tags=TRANSFER,
    summary="Export the bot's image gallery as an XML file",
    responses=EXPORT_ANSWERS,
)
class GalleryExportView(ServletView):
    def get(self, request, bot_uuid):
        bot, user = permitted_bot(request, bot_uuid, "knowledge.read")
        chunks = exclusive_export(user, exchange.export_gallery(bot))
        return file_response(request, chunks, download_name(bot, "gallery"))


@extend_schema(
    tags=TRANSFER,
    summary="Import a gallery file as the bot's image gallery",
    request=UPLOAD,
    responses=IMPORT_ANSWERS,
)
class GalleryImportView(ServletView):
    @staticmethod
    def before_body(request, bot_uuid):
        """What is checked before the file is read (here, and from the headers by bots/servlet/before_body.py)."""
        return permitted_bot(request, bot_uuid, "knowledge.edit")

    def post(self, request, bot_uuid):
        bot, _ = self.before_body(request, bot_uuid)
        with received_file(request) as source:
            report = exchange.import_gallery(bot, source)
        return plain_json(report.as_json())


@extend_schema(
    tags=TRANSFER,
    summary="Export the bot's data (knowledge base and preferences) as an XML file",
    parameters=[EXCLUDE_GALLERY],
    responses=EXPORT_ANSWERS,
)
class BotDataExportView(ServletView):
    def get(self, request, bot_uuid, exclude_gallery=None):
        bot, user = permitted_bot(request, bot_uuid, "knowledge.read")
        authorize(request, bot, "preferences.read")
        gallery = not path_flag(exclude_gallery)
        chunks = exclusive_export(user, exchange.export_knowledge_base(bot, gallery=gallery, preferences=True))
        return file_response(request, chunks, download_name(bot, "bot data"))


@extend_schema(
    tags=TRANSFER,
    summary="Import bot data (knowledge base and preferences) into this bot, in one transaction",
    request=UPLOAD,
    responses=IMPORT_ANSWERS,
)
class BotDataImportView(ServletView):
    @staticmethod
    def before_body(request, bot_uuid):
        """What is checked before the file is read (here, and from the headers by bots/servlet/before_body.py)."""
        bot, user = permitted_bot(request, bot_uuid, "knowledge.edit")
        authorize(request, bot, "preferences.edit")
        return bot, user

    def post(self, request, bot_uuid):
        bot, user = self.before_body(request, bot_uuid)
        with received_file(request) as source:
            report = exchange.import_knowledge_base(bot, source, preferences=True, user=user)
        return plain_json(report.as_json())


@extend_schema(
    tags=MATCHING_GROUPS,
    summary="All matching (formulation) groups of the bot",
    responses=responses(
        {
            200: plain_schema(
                {
                    "type": "object",
                    "properties": {"botUUID": {"type": "string"}, "matchingGroups": {"type": "array", "items": OBJECT}},
                }
            )
        },
        *PROTECTED_RESOURCE_ERRORS,
    ),
)
class MatchingGroupsView(ServletView):
    def get(self, request, bot_uuid):
        bot, _ = permitted_bot(request, bot_uuid, "knowledge.read")
        groups = MatchingGroup.objects.filter(bot=bot).order_by("category", "name", "id")
        return plain_json(
            {
                "botUUID": str(bot.uuid),
                "matchingGroups": [
                    {"uuid": str(uuid), "name": name, "category": category, "members": list(members or [])}
                    for uuid, name, category, members in groups.values_list("uuid", "name", "category", "members")
                ],
            }
        )
