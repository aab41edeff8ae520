"""Which files a visitor may send, told from their first bytes: the declared type, the name's extension
and the content must all name the same allowed type (a renamed executable or a disguised page is refused).
"""

import zipfile
from dataclasses import dataclass

# How much of the file the checks read: enough for every signature below and a text sample.
HEAD_BYTES = 8192
OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy Office (doc, xls, ppt)
ZIP = b"PK\x03\x04"


@dataclass(frozen=True)
class FileType:
    content_type: str
    extensions: tuple[str, ...]
    label: str
    # Other spellings browsers declare for the same type.
    aliases: tuple[str, ...] = ()


TYPES = (
    FileType("image/png", (".png",), "PNG image"),
    FileType("image/jpeg", (".jpg", ".jpeg"), "JPEG image", ("image/jpg", "image/pjpeg")),
    FileType("image/gif", (".gif",), "GIF image"),
    FileType("image/webp", (".webp",), "WebP image"),
    FileType("application/pdf", (".pdf",), "PDF document", ("application/x-pdf",)),
    FileType("text/plain", (".txt", ".log"), "text"),
    FileType("text/csv", (".csv",), "CSV table", ("application/csv",)),
    FileType("application/msword", (".doc",), "Word document"),
    FileType("application/vnd.ms-excel", (".xls",), "Excel workbook"),
    FileType("application/vnd.ms-powerpoint", (".ppt",), "PowerPoint presentation"),
    FileType("application/vnd.openxmlformats-officedocument.wordprocessingml.document", (".docx",), "Word document"),
    FileType("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", (".xlsx",), "Excel workbook"),
    FileType(
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        (".pptx",),
        "PowerPoint presentation",
    ),
    FileType("application/vnd.oasis.opendocument.text", (".odt",), "OpenDocument text"),
    FileType("application/vnd.oasis.opendocument.spreadsheet", (".ods",), "OpenDocument spreadsheet"),
    FileType("application/vnd.oasis.opendocument.presentation", (".odp",), "OpenDocument presentation"),
)
BY_DECLARED = {name: kind for kind in TYPES for name in (kind.content_type, *kind.aliases)}
# The part every OOXML package of each kind holds (read from the zip's directory, nothing decompressed).
OOXML_PARTS = {
    "word/document.xml": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xl/workbook.xml": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "ppt/presentation.xml": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}
OLE2_TYPES = {"application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"}
TEXT_TYPES = {"text/plain", "text/csv"}


class Refused(Exception):
    """The file is not one the chatbox may send; the message says why, for the visitor."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message = message
        self.code = code


def allowed_summary() -> str:
    return ", ".join(sorted({ext for kind in TYPES for ext in kind.extensions}))


def check(name: str, declared: str, stream) -> FileType:
    """The file's type, or Refused: the declared type and the extension must be allowed and agree, and
    the content must be that type (its signature, or readable text for text types)."""
    declared = (declared or "").split(";")[0].strip().lower()
    kind = BY_DECLARED.get(declared)
    if kind is None:
        raise Refused(
            f"Files of type '{declared[:80] or 'unknown'}' are not accepted (allowed: {allowed_summary()}).",
            "UNSUPPORTED_FILE_TYPE",
        )
    extension = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if extension not in kind.extensions:
        raise Refused(
            f"The file name's extension does not match its type ({kind.label}: {', '.join(kind.extensions)}).",
            "FILE_TYPE_MISMATCH",
        )
    stream.seek(0)
    head = stream.read(HEAD_BYTES)
    stream.seek(0)
    if not matches(kind, sniff(head, stream)):
        raise Refused(f"The file's content is not a {kind.label}.", "FILE_CONTENT_MISMATCH")
    return kind


def sniff(head: bytes, stream) -> str | None:
    """The allowed type the content is, from its first bytes (and a zip's directory), or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if head.startswith(OLE2):
        return _ole2(stream)
    if head.startswith(ZIP):
        return _zip_package(head, stream)
    if _is_text(head):
        return "text"
    return None


def _ole2(stream) -> str | None:
    """Legacy Office files share one container; which program made it is in its stream names, which are
    UTF-16 in the directory: looked for, not parsed."""
    stream.seek(0)
    data = stream.read(4 * 1024 * 1024)
    stream.seek(0)
    for marker, content_type in (
        ("WordDocument", "application/msword"),
        ("Workbook", "application/vnd.ms-excel"),
        ("Book", "application/vnd.ms-excel"),
        ("PowerPoint Document", "application/vnd.ms-powerpoint"),
    ):
        if marker.encode("utf-16-le") in data:
            return content_type
    return None


def _zip_package(head: bytes, stream) -> str | None:
    # OpenDocument: the first entry is an uncompressed `mimetype` file holding the type (ODF 1.2 §3.3).
    if head[30:38] == b"mimetype":
        named = head[38:120].split(b"PK", 1)[0].decode("ascii", errors="replace").strip()
        for content_type in BY_DECLARED:
            if content_type.startswith("application/vnd.oasis.opendocument.") and named == content_type:
                return content_type
        return None
    try:
        stream.seek(0)
        names = set(zipfile.ZipFile(stream).namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None
    finally:
        stream.seek(0)
    if "[Content_Types].xml" not in names:
        return None
    for part, content_type in OOXML_PARTS.items():
        if part in names:
            return content_type
    return None


def _is_text(head: bytes) -> bool:
    """UTF-8 (a character cut at the end of the sample is fine) with no control characters but tabs and
    line ends, and not a web page (a text file is downloaded, but an HTML one has no business here)."""
    if not head or b"\x00" in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 3:
            return False
        text = head[: error.start].decode("utf-8")
    if any(ord(char) < 32 and char not in "\t\r\n\f" for char in text):
        return False
    start = text.lstrip("\ufeff \t\r\n").lower()
    return not start.startswith(("<!doctype", "<html", "<script", "<svg", "<?xml"))


def matches(kind: FileType, found: str | None) -> bool:
    return found == kind.content_type or (found == "text" and kind.content_type in TEXT_TYPES)
