"""Built indexes kept on disk: an object graph written once and read back by any process, its large arrays
memory-mapped read-only so that a machine's processes share their pages.

A stored object is a directory: `graph` (a pickle of the object whose large numpy arrays are left out, each
named by its number) behind an HMAC-SHA256 of its bytes, and `<n>.npy` per array. Reading checks the HMAC
before unpickling: only a process holding the key (the deployment's secret) can have written a graph that is
unpickled, so a file planted in the directory runs no code. The arrays are read with `allow_pickle=False`
(numbers only) and must have the dtype and shape the signed graph says.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import pickle
import shutil
import tempfile
from pathlib import Path

import numpy as np

# Arrays smaller than this stay inside the graph: a file and a mapping each cost more than they save.
MAPPED_MIN_BYTES = 64 * 1024
DIGEST = hashlib.sha256().digest_size


class Unreadable(Exception):
    """The stored object is missing, torn, from another key or not what its graph says."""


class _Pickler(pickle.Pickler):
    def __init__(self, file, folder: Path):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.folder = folder
        self.count = 0

    def persistent_id(self, obj):
        if type(obj) is np.ndarray and obj.nbytes >= MAPPED_MIN_BYTES and obj.dtype.kind in "biuf":
            number = self.count
            self.count += 1
            np.save(self.folder / f"{number}.npy", np.ascontiguousarray(obj), allow_pickle=False)
            return ("array", number, obj.dtype.str, obj.shape)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, folder: Path):
        super().__init__(file)
        self.folder = folder

    def persistent_load(self, pid):
        kind, number, dtype, shape = pid
        if kind != "array":
            raise Unreadable(f"unknown reference {kind!r}")
        array = np.load(self.folder / f"{int(number)}.npy", mmap_mode="r", allow_pickle=False)
        if array.dtype.str != dtype or array.shape != tuple(shape):
            raise Unreadable(f"array {number} is not the one written")
        # A plain array over the mapping: every slice of a memmap is a memmap, slower to make, and a talk makes
        # thousands (the lexical postings).
        return np.asarray(array)


def _sign(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def dump(obj, folder: Path, key: bytes) -> None:
    """Write `obj` as `folder` (replaced whole, atomically: readers see the old directory or the new one)."""
    folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        buffer = io.BytesIO()
        _Pickler(buffer, scratch).dump(obj)
        data = buffer.getvalue()
        with open(scratch / "graph", "wb") as out:
            out.write(_sign(key, data))
            out.write(data)
        try:
            os.rename(scratch, folder)
        except OSError:  # another process stored the same object first: theirs serves
            shutil.rmtree(scratch, ignore_errors=True)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def load(folder: Path, key: bytes):
    """The object stored as `folder`; Unreadable when it is absent, torn or not signed with `key`."""
    try:
        with open(folder / "graph", "rb") as source:
            signature = source.read(DIGEST)
            data = source.read()
    except OSError as error:
        raise Unreadable(str(error)) from error
    if len(signature) != DIGEST or not hmac.compare_digest(signature, _sign(key, data)):
        raise Unreadable(f"{folder} is not signed with this deployment's key")
    try:
        return _Unpickler(io.BytesIO(data), folder).load()
    except Unreadable:
        raise
    except Exception as error:  # a stored object of an older code, a removed array file
        raise Unreadable(f"{folder}: {type(error).__name__}: {error}") from error
