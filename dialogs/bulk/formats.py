"""The two encodings of an export's rows, as byte chunks of about CHUNK_BYTES each: JSON lines (one
object per interaction, lossless) and CSV (a header line, then one line per interaction)."""

import csv
import io
import json
from collections.abc import Iterable, Iterator

from .export import COLUMNS

CHUNK_BYTES = 64 * 1024
# A cell a spreadsheet would run as a formula (visitors write what they like): it gets a leading
# quote, as OWASP advises for CSV exports. JSON lines keep the text exactly as stored.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class Format:
    def __init__(self, name: str, content_type: str, extension: str, encode):
        self.name, self.content_type, self.extension, self.encode = name, content_type, extension, encode


def jsonl_chunks(rows: Iterable[tuple]) -> Iterator[bytes]:
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    lines: list[str] = []
    size = 0
    for row in rows:
        line = dumps(dict(zip(COLUMNS, row, strict=True)))
        lines.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield ("\n".join(lines) + "\n").encode()
            lines, size = [], 0
    if lines:
        yield ("\n".join(lines) + "\n").encode()


def csv_chunks(rows: Iterable[tuple]) -> Iterator[bytes]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
        if buffer.tell() >= CHUNK_BYTES:
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode()


def csv_cell(value) -> str:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


FORMATS = {
    "jsonl": Format("jsonl", "application/x-ndjson; charset=utf-8", "jsonl", jsonl_chunks),
    "csv": Format("csv", "text/csv; charset=utf-8", "csv", csv_chunks),
}
ALIASES = {"json": "jsonl", "ndjson": "jsonl", "jsonlines": "jsonl"}


def format_named(name: str) -> Format | None:
    name = (name or "jsonl").strip().lower()
    return FORMATS.get(ALIASES.get(name, name))
