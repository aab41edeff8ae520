"""The chatbox's upload and print calls: files as a visitor's browser sends them, and the upload answer
read the way CV5 reads it (client-contract.md §2.2 (22)-(23))."""

import io
import json
import struct
import zipfile
import zlib
from urllib.parse import urlencode

import pytest

CALLBACK = "dyduUploadCallBack_0PW"
ORIGIN = "http://0.0.0.0:9999"
FIELD = "dydu-upload-file"


def cv5_answer(page: str) -> dict:
    """What CV5's htmlToJsonForSendUploadFile makes of the page: the text from the first `{` to the last
    `}`, `api` and `params` quoted, single quotes made double, then JSON.parse."""
    text = page[page.index("{") : page.rindex("}") + 1]
    text = text.replace("api", '"api"', 1).replace("params", '"params"', 1).replace("'", '"')
    return json.loads(text)


def png(width: int = 2, height: int = 2) -> bytes:
    """A real PNG image (an opaque blue square)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\x24\x53\xd6" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def pdf() -> bytes:
    return (
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
        b"trailer<</Root 1 0 R>>\n%%EOF\n"
    )


def docx() -> bytes:
    """The smallest Word package: its content types and a document part."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        package.writestr("word/document.xml", '<?xml version="1.0"?><w:document/>')
    return buffer.getvalue()


def upload_url(context_id: str, *, callback: str = CALLBACK, origin: str | None = ORIGIN, prefix="/servlet") -> str:
    query = {"ctx": context_id, "fin": FIELD, "cb": callback}
    if origin is not None:
        query["origin"] = origin
    return f"{prefix}/fileupload?{urlencode(query)}"


def send_file(client, context_id: str, name: str, content: bytes, content_type: str, **options):
    """The chatbox's upload: a multipart form with the file in `dydu-upload-file`."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    extra = options.pop("headers", {})
    url = upload_url(context_id, **options)
    return client.post(url, {FIELD: SimpleUploadedFile(name, content, content_type=content_type)}, headers=extra)


@pytest.fixture
def upload_dir(settings, tmp_path):
    """Files go to a folder of the test's own."""
    settings.CHAT_UPLOAD_DIR = tmp_path / "uploads"
    return settings.CHAT_UPLOAD_DIR


@pytest.fixture(autouse=True)
def lexical_matching(settings):
    """These calls are not about matching: the lexical matcher answers the demo bot's questions alike."""
    settings.MATCHING_EMBEDDINGS = False
