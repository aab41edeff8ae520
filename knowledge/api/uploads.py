"""Receiving a knowledge base file: a multipart upload (field `file`, or any single file field) or
an XML request body, never larger than settings.KB_UPLOAD_MAX_BYTES.

The size is checked on the declared Content-Length before anything is read, and counted again
while the body streams to a temporary file (a client may lie, or send it chunked), so an oversized
upload is refused with 413 long before it is in memory or on disk whole.
"""

import tempfile
from contextlib import contextmanager

from django.conf import settings
from django.core.files.uploadhandler import TemporaryFileUploadHandler

from bots.servlet.errors import BadRequest, MissingField, TooLarge

XML_TYPES = ("application/xml", "text/xml")
READ_BYTES = 64 * 1024


def limit() -> int:
    return settings.KB_UPLOAD_MAX_BYTES


def too_large(max_bytes: int | None = None, setting: str = "KB_UPLOAD_MAX_BYTES") -> TooLarge:
    max_bytes = max_bytes or limit()
    megabytes = max_bytes / (1024 * 1024)
    return TooLarge(
        f"The file is larger than this server accepts ({megabytes:g} MB, setting {setting}).",
        maxBytes=max_bytes,
    )


class LimitedUploadHandler(TemporaryFileUploadHandler):
    """Every uploaded file goes to a temporary file; the bytes of all files together are counted."""

    def __init__(self, request=None, max_bytes: int | None = None, setting: str = "KB_UPLOAD_MAX_BYTES"):
        super().__init__(request)
        self.received = 0
        self.max_bytes = max_bytes or limit()
        self.setting = setting

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > self.max_bytes:
            raise too_large(self.max_bytes, self.setting)
        return super().receive_data_chunk(raw_data, start)


@contextmanager
def received_file(request, *, body_types=XML_TYPES, max_bytes: int | None = None, setting="KB_UPLOAD_MAX_BYTES"):
    """The uploaded file as a seekable binary file, removed afterwards. Another kind of file than XML
    names its body media types and may have its own limit (`max_bytes`, from the setting `setting`)."""
    http_request = getattr(request, "_request", request)
    max_bytes = max_bytes or limit()
    try:
        declared = int(http_request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise BadRequest("The Content-Length header is not a number.") from None
    if declared > max_bytes:
        raise too_large(max_bytes, setting)
    if declared <= 0:
        raise MissingField("file")
    content_type = (http_request.content_type or "").lower()
    if content_type.startswith("multipart/form-data"):
        with _multipart_file(http_request, max_bytes, setting) as upload:
            yield upload
    elif content_type in body_types:
        with _body_file(http_request, max_bytes, setting) as body:
            yield body
    else:
        raise BadRequest(
            f"Send the file as multipart/form-data (field 'file') or as a {body_types[0]} request body.",
            code="UNSUPPORTED_MEDIA_TYPE",
        )


@contextmanager
def _multipart_file(http_request, max_bytes: int, setting: str):
    http_request.upload_handlers = [LimitedUploadHandler(http_request, max_bytes, setting)]
    files = http_request.FILES
    if "file" in files:
        upload = files["file"]
    elif len(files) == 1:
        upload = next(iter(files.values()))
    elif not files:
        raise MissingField("file")
    else:
        raise BadRequest(
            f"Several files were sent ({', '.join(sorted(files))}); send one, in the field 'file'.",
            code="SEVERAL_FILES",
        )
    if not upload.size:
        raise BadRequest(f"The uploaded file '{upload.name}' is empty.", code="EMPTY_FILE")
    try:
        upload.seek(0)
        yield upload
    finally:
        for sent in files.values():
            sent.close()


@contextmanager
def _body_file(http_request, max_bytes: int, setting: str):
    with tempfile.TemporaryFile() as body:
        received = 0
        while chunk := http_request.read(READ_BYTES):
            received += len(chunk)
            if received > max_bytes:
                raise too_large(max_bytes, setting)
            body.write(chunk)
        if not received:
            raise MissingField("file")
        body.seek(0)
        yield body
