"""Where visitors' files live: DATA_DIR/uploads/<two hex>/<random name>, never a name the visitor chose."""

import hashlib
import os
import secrets
from pathlib import Path

from django.conf import settings

COPY_BYTES = 64 * 1024


def root() -> Path:
    return Path(getattr(settings, "CHAT_UPLOAD_DIR", None) or Path(settings.DATA_DIR) / "uploads")


def path_of(stored_name: str) -> Path:
    # stored_name is ours (hex only): joining it cannot leave the folder.
    return root() / stored_name[:2] / stored_name


def save(stream) -> tuple[str, int, str]:
    """Copy the received file under a fresh random name; returns (stored name, size, sha256)."""
    stored_name = secrets.token_hex(20)
    target = path_of(stored_name)
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    stream.seek(0)
    partial = target.with_suffix(".part")
    # Not readable by other users of the machine; only the server process serves it back.
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        while chunk := stream.read(COPY_BYTES):
            digest.update(chunk)
            size += len(chunk)
            out.write(chunk)
    partial.replace(target)
    return stored_name, size, digest.hexdigest()


def delete(stored_name: str) -> None:
    path_of(stored_name).unlink(missing_ok=True)


def open_stored(stored_name: str):
    return path_of(stored_name).open("rb")
