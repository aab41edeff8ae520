"""A bot's knowledge snapshot and matching indexes stored on disk once per knowledge version, so that every
process of the machine (a fresh worker, a restarted one, the background process) reads in a fraction of a
second what one process built: at 500,000 formulations, building takes 10 s and more (bench/INDEX_FILES.md).

Layout under MATCHING_INDEX_DIR: `<bot uuid>/<knowledge version>-<code>/` holding `snapshot/` and one
`<language>-<mode>/` per matching index (matching/stored.py says what each holds). `<code>` changes with the
matching code, the numpy and Python versions and the database, so that a deploy never reads an index another
code wrote. A knowledge edit makes a new version; the bot's older versions are removed when a new one is
stored. An index being built holds a lock file beside it: the machine's other processes wait for it and read
it instead of building the same index at the same time.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import logging
import os
import platform
import shutil
import threading
import time
from pathlib import Path

import numpy as np
from django.conf import settings
from django.utils.crypto import salted_hmac

from .matching import stored

log = logging.getLogger(__name__)

# Older versions of a bot are removed only once this old: a process may still be reading one.
KEEP_SECONDS = 60.0


def enabled() -> bool:
    return bool(settings.MATCHING_INDEX_DIR)


@functools.cache
def _key() -> bytes:
    return salted_hmac("knowledge.index_files", "stored indexes").digest()


@functools.cache
def code_version() -> str:
    """What a stored index depends on besides the knowledge: the code that wrote it and the database."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for source in sorted([*here.joinpath("matching").glob("*.py"), here / "snapshot.py", here / "index_files.py"]):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    database = settings.DATABASES["default"]
    for part in (np.__version__, platform.python_version(), database["ENGINE"], str(database["NAME"])):
        digest.update(part.encode())
    digest.update(f"{database.get('HOST', '')}:{database.get('PORT', '')}".encode())
    return digest.hexdigest()[:16]


def _version_folder(bot_uuid: str, version: int) -> Path:
    return Path(settings.MATCHING_INDEX_DIR) / str(bot_uuid) / f"{version}-{code_version()}"


def read(bot_uuid: str, version: int, name: str):
    """The object stored as `name` for that knowledge version, or None (absent, or unreadable: then removed)."""
    if not enabled() or not bot_uuid:
        return None
    folder = _version_folder(bot_uuid, version) / name
    if not folder.exists():
        return None
    started = time.perf_counter()
    try:
        found = stored.load(folder, _key())
    except stored.Unreadable as error:
        log.warning("Stored index %s is unreadable, it is built again: %s", folder, error)
        shutil.rmtree(folder, ignore_errors=True)
        return None
    log.info("Read stored index %s in %.0f ms", folder, (time.perf_counter() - started) * 1000)
    return found


def write(bot_uuid: str, version: int, name: str, obj) -> None:
    """Store `obj` as `name` for that knowledge version (never raises: the index serves from memory anyway)."""
    if not enabled() or not bot_uuid:
        return
    folder = _version_folder(bot_uuid, version)
    try:
        if not (folder / name).exists():
            stored.dump(obj, folder / name, _key())
        _remove_older(folder)
    except Exception:
        log.exception("Could not store the index %s", folder / name)


def write_when_ready(bot_uuid: str, version: int, name: str, matcher) -> None:
    """Store a matcher once its classifier and calibration are final: now, or from a thread that waits."""
    if not enabled() or not bot_uuid:
        return
    if matcher.ready.is_set():
        write(bot_uuid, version, name, matcher)
        return

    def later() -> None:
        matcher.wait_ready()
        write(bot_uuid, version, name, matcher)

    threading.Thread(target=later, name="matcher-store", daemon=True).start()


@contextlib.contextmanager
def building(bot_uuid: str, version: int, name: str):
    """Held while this process builds `name`: another process building it meanwhile is waited for."""
    if not enabled() or not bot_uuid:
        yield
        return
    folder = _version_folder(bot_uuid, version)
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = os.open(folder / f".{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        log.exception("Could not lock %s: building without", folder / name)
        yield
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)  # closing releases the lock


def forget(bot_uuid: str) -> None:
    """Remove everything stored for a bot (it was deleted)."""
    if enabled() and bot_uuid:
        shutil.rmtree(Path(settings.MATCHING_INDEX_DIR) / bot_uuid, ignore_errors=True)


def _remove_older(current: Path) -> None:
    """Remove the bot's older knowledge versions (and other codes' stores of this one) not touched for
    KEEP_SECONDS; a newer version, which a process ahead of this one stored, stays."""
    now = time.time()
    version = _version_of(current)
    for other in current.parent.iterdir():
        if other == current or other.name.startswith(".") or _version_of(other) > version:
            continue
        with contextlib.suppress(OSError):
            if now - other.stat().st_mtime > KEEP_SECONDS:
                shutil.rmtree(other, ignore_errors=True)


def _version_of(folder: Path) -> int:
    head = folder.name.split("-", 1)[0]
    return int(head) if head.isdigit() else -1
