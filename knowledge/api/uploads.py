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


def too_large() -> TooLarge:
    megabytes = limit() / (1024 * 1024)
    return TooLarge(
        f"The file is larger than this server accepts ({megabytes:g} MB, setting KB_UPLOAD_MAX_BYTES).",
        maxBytes=limit(),
    )


class LimitedUploadHandler(TemporaryFileUploadHandler):
    """Every uploaded file goes to a temporary file; the bytes of all files together are counted."""

    def __init__(self, request=None):
        super().__init__(request)
        self.received = 0

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > limit():
            raise too_large()
        return super().receive_data_chunk(raw_data, start)


@contextmanager
def received_file(request):
    """The uploaded file as a seekable binary file, removed afterwards."""
    http_request = getattr(request, "_request", request)
    try:
        declared = int(http_request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise BadRequest("The Content-Length header is not a number.") from None
    if declared > limit():
        raise too_large()
    if declared <= 0:
        raise MissingField("file")
    content_type = (http_request.content_type or "").lower()
    if content_type.startswith("multipart/form-data"):
        with _multipart_file(http_request) as upload:
            yield upload
    elif content_type in XML_TYPES:
        with _body_file(http_request) as body:
            yield body
    else:
        raise BadRequest(
            "Send the file as multipart/form-data (field 'file') or as an application/xml request body.",
            code="UNSUPPORTED_MEDIA_TYPE",
        )


@contextmanager
def _multipart_file(http_request):
    http_request.upload_handlers = [LimitedUploadHandler(http_request)]
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
def _body_file(http_request):
    with tempfile.TemporaryFile() as body:
        received = 0
        while chunk := http_request.read(READ_BYTES):
            received += len(chunk)
            if received > limit():
                raise too_large()
            body.write(chunk)
        if not received:
            raise MissingField("file")
        body.seek(0)
        yield body
