"""The two encodings of an export's rows, as byte chunks of about CHUNK_BYTES each: JSON lines (one
object per interaction, lossless) and CSV (a header line, then one line per interaction)."""

import csv
import io
import json
from collections.abc import Iterable, Iterator

from .export import COLUMNS, DIALOG_COLUMNS, INTERACTION_COLUMNS

CHUNK_BYTES = 256 * 1024
# A cell a spreadsheet would run as a formula (visitors write what they like): it gets a leading
# quote, as OWASP advises for CSV exports. JSON lines keep the text exactly as stored.
FORMULA_FIRST = frozenset("=+-@\t\r")


class Format:
    def __init__(self, name: str, content_type: str, extension: str, encode):
        self.name, self.content_type, self.extension, self.encode = name, content_type, extension, encode


# The dialog's part of a row is the same for all its interactions: each encoder writes it once per
# dialog and puts it before each interaction's part (a third of the encoding time otherwise).


def jsonl_chunks(rows: Iterable[tuple[tuple, tuple]]) -> Iterator[bytes]:
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    lines: list[str] = []
    size = 0
    last = prefix = None
    for dialog, interaction in rows:
        if dialog is not last:
            last, prefix = dialog, dumps(dict(zip(DIALOG_COLUMNS, dialog, strict=True)))[:-1] + ","
        line = prefix + dumps(dict(zip(INTERACTION_COLUMNS, interaction, strict=True)))[1:]
        lines.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield ("\n".join(lines) + "\n").encode()
            lines, size = [], 0
    if lines:
        yield ("\n".join(lines) + "\n").encode()


def csv_chunks(rows: Iterable[tuple[tuple, tuple]]) -> Iterator[bytes]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    # The dialog's cells, written once, end with the separator that comes before the interaction's.
    dialog_buffer = io.StringIO()
    dialog_writer = csv.writer(dialog_buffer, lineterminator=",")
    last = prefix = None
    for dialog, interaction in rows:
        if dialog is not last:
            dialog_buffer.seek(0)
            dialog_buffer.truncate()
            dialog_writer.writerow([csv_cell(value) for value in dialog])
            last, prefix = dialog, dialog_buffer.getvalue()
        buffer.write(prefix)
        writer.writerow([csv_cell(value) for value in interaction])
        if buffer.tell() >= CHUNK_BYTES:
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode()


def csv_cell(value):
    if value.__class__ is str:
        return "'" + value if value[:1] in FORMULA_FIRST else value
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    return value


FORMATS = {
    "jsonl": Format("jsonl", "application/x-ndjson; charset=utf-8", "jsonl", jsonl_chunks),
    "csv": Format("csv", "text/csv; charset=utf-8", "csv", csv_chunks),
}
ALIASES = {"json": "jsonl", "ndjson": "jsonl", "jsonlines": "jsonl"}


def format_named(name: str) -> Format | None:
    name = (name or "jsonl").strip().lower()
    return FORMATS.get(ALIASES.get(name, name))
