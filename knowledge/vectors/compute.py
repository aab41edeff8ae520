"""Computing a claimed job: the bot's matchable formulations that lack a usable vector, by language and text
length, a chunk at a time; each chunk's vectors are stored at once, so a job cut short loses one chunk at most
(a restart computes only what is still missing)."""

from __future__ import annotations

import logging
import time

from knowledge import matching
from knowledge.matching import embeddings
from knowledge.models import Formulation, KnowledgeItem

from . import jobs
from .models import VectorJob

log = logging.getLogger(__name__)

MATCHABLE = (KnowledgeItem.Kind.QUESTION, KnowledgeItem.Kind.SLOT)
# About 2-4 s of model time per chunk here: the heartbeat stays well inside the lease.
CHUNK = 512
# Formulations read at a time while looking for the missing vectors (their stored vectors are not kept).
SCAN = 2000


def formulations(bot_id: int):
    return Formulation.objects.filter(item__bot_id=bot_id, item__kind__in=MATCHABLE).order_by("id")


def missing(bot_id: int) -> tuple[int, list[tuple[int, str, str, None]]]:
    """(how many matchable formulations the bot has, those among them without a usable vector)."""
    total = 0
    lacking = []
    last_id = 0
    # Pages by id rather than a server-side cursor: nothing to hold open between pages (PgBouncer, leases).
    while page := list(
        formulations(bot_id).filter(id__gt=last_id).values_list("id", "language", "text", "vector")[:SCAN]
    ):
        total += len(page)
        last_id = page[-1][0]
        lacking += [
            (fid, language, text, None)
            for fid, language, text, vector in page
            if not embeddings.usable(vector, language)
        ]
    return total, lacking


def run(job: VectorJob, stop=lambda: False) -> bool:
    """Compute the job's vectors; True when it ran to its end (done), False when it stopped (lost its
    claim, or `stop()`). Raises what the models or the database raise (the worker marks the job failed)."""
    started = time.perf_counter()
    total, lacking = missing(job.bot_id)
    done, computed = total - len(lacking), 0
    if not jobs.beat(job, total=total, done=done, computed=0):
        return False
    # The models pad a batch's texts to its longest: chunks of texts of like length encode 15-20 % faster than
    # chunks in id order (bench/MATCHING.md, "Vectors at import").
    lacking.sort(key=lambda row: (row[1], len(row[2])))
    for start in range(0, len(lacking), CHUNK):
        chunk = lacking[start : start + CHUNK]
        computed += store_missing(chunk)
        done += len(chunk)
        if stop() or not jobs.beat(job, done=min(done, total), computed=computed):
            return False
    log.info(
        "Vectors of bot %s: %d formulations, %d computed in %.1f s",
        job.bot_id,
        total,
        computed,
        time.perf_counter() - started,
    )
    return jobs.beat(job, total=total, done=total, computed=computed) and jobs.finish(job)


def store_missing(chunk) -> int:
    """Compute and store the vectors this chunk of (id, language, text, vector) lacks (one model call per
    language, one text once); a formulation edited or deleted meanwhile is left to its own next computation."""
    by_language: dict[str, list[tuple[int, str]]] = {}
    for fid, language, text, vector in chunk:
        if not embeddings.usable(vector, language):
            by_language.setdefault(language, []).append((fid, text))
    count = 0
    for language, lacking in by_language.items():
        texts = sorted({text for _, text in lacking})
        vectors = matching.embed_formulations(texts, language)
        if vectors is None:  # embeddings switched off meanwhile: nothing to store
            continue
        of_text = dict(zip(texts, vectors, strict=True))
        # The texts as they are now: a vector is stored only beside the text it was computed from.
        now = dict(Formulation.objects.filter(id__in=[fid for fid, _ in lacking]).values_list("id", "text"))
        kept = [(fid, text) for fid, text in lacking if now.get(fid) == text]
        Formulation.objects.bulk_update(
            [Formulation(id=fid, vector=of_text[text]) for fid, text in kept], ["vector"], batch_size=500
        )
        count += len(kept)
    return count
