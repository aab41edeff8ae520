"""Computing a claimed job: the bot's matchable formulations in id order, a chunk at a time; each chunk's
missing (or unusable) vectors are computed and stored at once, so a job cut short loses one chunk at most."""

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


def formulations(bot_id: int):
    return Formulation.objects.filter(item__bot_id=bot_id, item__kind__in=MATCHABLE).order_by("id")


def run(job: VectorJob, stop=lambda: False) -> bool:
    """Compute the job's vectors; True when it ran to its end (done), False when it stopped (lost its
    claim, or `stop()`). Raises what the models or the database raise (the worker marks the job failed)."""
    started = time.perf_counter()
    rows = formulations(job.bot_id)
    total = rows.count()
    done = computed = 0
    last_id = 0
    if not jobs.beat(job, total=total, done=0, computed=0):
        return False
    while True:
        chunk = list(rows.filter(id__gt=last_id).values_list("id", "language", "text", "vector")[:CHUNK])
        if not chunk:
            break
        computed += store_missing(chunk)
        done += len(chunk)
        last_id = chunk[-1][0]
        if stop() or not jobs.beat(job, done=min(done, total), computed=computed):
            return False
    log.info(
        "Vectors of bot %s: %d formulations, %d computed in %.1f s",
        job.bot_id,
        done,
        computed,
        time.perf_counter() - started,
    )
    return jobs.beat(job, total=max(total, done), done=done, computed=computed) and jobs.finish(job)


def store_missing(chunk) -> int:
    """Compute and store the vectors this chunk lacks (one model call per language, one text once)."""
    by_language: dict[str, list[tuple[int, str]]] = {}
    for fid, language, text, vector in chunk:
        if not embeddings.usable(vector, language):
            by_language.setdefault(language, []).append((fid, text))
    count = 0
    for language, missing in by_language.items():
        texts = sorted({text for _, text in missing})
        vectors = matching.embed_formulations(texts, language)
        if vectors is None:  # embeddings switched off meanwhile: nothing to store
            continue
        of_text = dict(zip(texts, vectors, strict=True))
        Formulation.objects.bulk_update(
            [Formulation(id=fid, vector=of_text[text]) for fid, text in missing], ["vector"], batch_size=500
        )
        count += len(missing)
    return count
